"""Storage: every event is on disk before it is acknowledged, reopening resumes the sitting exactly,
and a database that cannot be opened or a stale window gets a clear error that changes nothing."""

from __future__ import annotations

import csv
import errno
import io
import json
import marshal
import re
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from assistant import IllegalAction, NewGame, Play, Rank, Sitting, StorageError, TranscriptError, Undo, Winner
from assistant.events import to_dict
from assistant.referee import Referee
from assistant.storage import (CalledFirst, CallOpenElsewhere, FileReplaced, MovedOn, OpenCall, SqliteStore,
                               StaleSitting, default_db_path)

from .helpers import call, ranks
from .randomgame import play_random, rules_strategy

PLAYERS = ("Alice", "Ben", "Cara", "Dev")


def test_default_database_path_follows_the_settings(monkeypatch, tmp_path):
    monkeypatch.delenv("CHEAT_REFEREE_DB", raising=False)
    monkeypatch.setenv("CHEAT_REFEREE_DATA", str(tmp_path / "data"))
    assert default_db_path() == tmp_path / "data" / "referee.sqlite3"
    monkeypatch.setenv("CHEAT_REFEREE_DB", str(tmp_path / "x.sqlite3"))
    assert default_db_path() == tmp_path / "x.sqlite3"
    monkeypatch.delenv("CHEAT_REFEREE_DB")
    monkeypatch.delenv("CHEAT_REFEREE_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_db_path() == tmp_path / "xdg" / "cheat-referee" / "referee.sqlite3"


@pytest.mark.parametrize("setting", ["CHEAT_REFEREE_DB", "CHEAT_REFEREE_DATA"])
def test_a_setting_set_but_empty_is_refused_not_taken_for_no_setting(monkeypatch, tmp_path, setting):
    """``CHEAT_REFEREE_DB="$DB"`` with DB unset was read as no setting: the table played on in the user's own
    database, and nothing said so. Refused by name, nothing made; where the settings are ignored (the default the
    page names once a bad setting is removed) it is the data folder still."""
    monkeypatch.delenv("CHEAT_REFEREE_DB", raising=False)
    monkeypatch.delenv("CHEAT_REFEREE_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv(setting, "")
    with pytest.raises(StorageError, match=f"^{setting} is set but empty: name .* in it, or unset it$"):
        default_db_path()
    with pytest.raises(StorageError, match=f"^{setting} is set but empty"):
        SqliteStore()
    assert not (tmp_path / "xdg").exists(), "nothing was made in the default place"
    assert default_db_path(ignore_settings=True) == tmp_path / "xdg" / "cheat-referee" / "referee.sqlite3"


def test_reopening_resumes_the_sitting_exactly(tmp_path):
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(NewGame(PLAYERS))
    referee.record(Play("Alice", 2))
    referee.record(call("Ben", "A", "9"))
    referee.record(Play("Ben", 1))
    referee.record(Undo())
    live = referee.state
    referee.store.close()
    reopened = Referee(SqliteStore(path), referee.sitting_id)
    assert reopened.state == live
    assert reopened.sitting.log == referee.sitting.log


def test_an_illegal_event_is_not_stored(tmp_path):
    store = SqliteStore(tmp_path / "r.sqlite3")
    referee = Referee.new(store, "Friday")
    referee.record(NewGame(PLAYERS))
    with pytest.raises(IllegalAction, match="it is Alice's turn, not Cara's"):
        referee.record(Play("Cara", 1))
    assert store.events(referee.sitting_id) == [NewGame(PLAYERS)]


def test_a_failed_write_changes_nothing_in_memory(tmp_path):
    store = SqliteStore(tmp_path / "r.sqlite3")
    referee = Referee.new(store, "Friday")
    referee.record(NewGame(PLAYERS))
    before = referee.state
    store.close()  # the database goes away under the referee
    with pytest.raises(StorageError, match="cannot write to the database"):
        referee.record(Play("Alice", 1))
    assert referee.state is before and len(referee.sitting.log) == 1


def test_a_database_that_cannot_be_opened_is_named(tmp_path):
    bad = tmp_path / "not-a-db.sqlite3"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StorageError, match=r"cannot open the database .*not-a-db\.sqlite3"):
        SqliteStore(bad)
    blocked = tmp_path / "file"
    blocked.write_text("x")
    with pytest.raises(StorageError, match=f"cannot open the database .*: {blocked} is a file, not a folder"):
        SqliteStore(blocked / "sub" / "db.sqlite3")


def test_a_database_folder_that_cannot_be_made_is_named_in_words():
    # /proc takes no new folders, even from root: the OSError's "[Errno 2]" is said in words
    with pytest.raises(StorageError) as raised:
        SqliteStore("/proc/no-such-folder/db.sqlite3")
    assert str(raised.value) == ("cannot open the database /proc/no-such-folder/db.sqlite3: no such file or directory "
                                 "(/proc/no-such-folder)")


def test_a_second_window_that_falls_behind_is_told_and_reloaded(tmp_path):
    path = tmp_path / "r.sqlite3"
    first = Referee.new(SqliteStore(path), "Friday")
    first.record(NewGame(PLAYERS))
    second = Referee(SqliteStore(path), first.sitting_id)
    first.record(Play("Alice", 1))
    with pytest.raises(StaleSitting, match="changed in another window"):
        second.record(Play("Alice", 1))
    assert second.state == first.state  # reloaded, not forked
    second.record(Play("Ben", 1))
    first.reload()
    assert first.state == second.state


def test_sittings_are_kept_apart(tmp_path):
    store = SqliteStore(tmp_path / "r.sqlite3")
    friday = Referee.new(store, "Friday")
    saturday = Referee.new(store, "Saturday")
    friday.record(Winner("Alice", players=PLAYERS))
    saturday.record(Winner("Ben", players=("Ben", "Eve")))
    assert [s.name for s in store.sittings()] == ["Friday", "Saturday"]
    assert Referee(store, friday.sitting_id).state.table.scores() == dict.fromkeys(PLAYERS, 0) | {"Alice": 1}
    assert Referee(store, saturday.sitting_id).state.table.scores() == {"Ben": 1, "Eve": 0}


def test_match_table_rows_are_stored_beside_the_log(tmp_path):
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(Winner("Alice", players=PLAYERS))
    referee.record(Winner("Ben"))
    referee.record(Undo())
    rows = sqlite3.connect(path).execute("SELECT number, places FROM games ORDER BY number").fetchall()
    assert rows == [(1, '["Alice"]')]


def test_export_transcript_and_import_it_as_a_new_sitting(tmp_path):
    store = SqliteStore(tmp_path / "r.sqlite3")
    referee = Referee.new(store, "Friday")
    referee.record(NewGame(PLAYERS))
    referee.record(Play("Alice", 2))
    referee.record(call("Ben", "A", "A"))
    copy = Referee.import_transcript(store, "Friday (copy)", referee.transcript().splitlines())
    assert copy.sitting_id != referee.sitting_id and copy.state == referee.state


def test_importing_an_illegal_transcript_stores_nothing(tmp_path):
    store = SqliteStore(tmp_path / "r.sqlite3")
    lines = ['{"event": "new_game", "players": ["Alice", "Ben"]}', '{"event": "play", "player": "Ben", "count": 1}']
    with pytest.raises(TranscriptError, match="line 2: it is Alice's turn, not Ben's"):
        Referee.import_transcript(store, "bad", lines)
    assert store.sittings() == []


def test_match_table_exports_as_csv(tmp_path):
    referee = Referee.new(SqliteStore(tmp_path / "r.sqlite3"), "Friday")
    referee.record(Winner("Alice", players=PLAYERS))
    referee.record(Winner("Ben"))
    rows = list(csv.DictReader(io.StringIO(referee.table_csv())))
    assert [(r["game"], r["first"], r["tracked"], r["ended"]) for r in rows] == [("1", "Alice", "no", "tap"),
                                                                                 ("2", "Ben", "no", "tap")]
    assert [rows[0][f"player {n}"] for n in range(1, 5)] == ["Alice", "Ben", "Cara", "Dev"]


def test_the_csv_keeps_each_name_whole_and_shows_formula_like_names_as_text(tmp_path):
    referee = Referee.new(SqliteStore(tmp_path / "r.sqlite3"), "Friday")
    referee.record(Winner("Lee; Kim", players=("Lee; Kim", "=1+1", "Ann, Jo")))
    referee.record(Winner("=1+1", players=("=1+1", "Ann, Jo")))
    rows = list(csv.reader(io.StringIO(referee.table_csv())))
    assert rows[0] == ["game", "kind", "tracked", "ended", "first", "second", "third", "player 1", "player 2",
                       "player 3"]
    assert rows[1][4] == "Lee; Kim" and rows[1][7:] == ["Lee; Kim", "'=1+1", "Ann, Jo"]
    assert rows[2][4] == "'=1+1" and rows[2][7:] == ["'=1+1", "Ann, Jo", ""]


def test_the_csv_file_for_a_spreadsheet_starts_with_a_byte_order_mark_so_excel_reads_accents(tmp_path):
    referee = Referee.new(SqliteStore(tmp_path / "r.sqlite3"), "Friday")
    referee.record(Winner("Zoë", players=("Zoë", "Björn")))
    data = referee.table_csv_file()
    assert data.startswith(b"\xef\xbb\xbf"), "Excel on Windows needs the mark to take the file as UTF-8"
    assert data[3:].decode("utf-8") == referee.table_csv() and "Zoë" in referee.table_csv()


def with_event_1_stored_as(tmp_path, body: str) -> tuple[Path, int]:
    """A sitting of a deal and a play whose stored row (event 1) is then set to ``body``, an SQL value, as a hand or a
    damaged disk could leave it: the database and the sitting's number."""
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(NewGame(PLAYERS))
    referee.record(Play("Alice", 1))
    with closing(sqlite3.connect(path)) as db:
        db.execute(f"UPDATE events SET body = {body} WHERE seq = 1")
        db.commit()
    return path, referee.sitting_id


@pytest.mark.parametrize("body", ["'{broken'", "'" + "[" * 100_000 + "]" * 100_000 + "'",
                                  "'{\"event\": \"play\", \"player\": \"Ben\", \"count\": " + "9" * 5000 + "}'",
                                  "X'7B22FF22'"])
def test_a_damaged_event_row_is_reported_by_sitting_and_number(tmp_path, body):
    path, sitting_id = with_event_1_stored_as(tmp_path, body)
    with pytest.raises(StorageError, match="event 1 of sitting 1 .* is damaged"):
        Referee(SqliteStore(path), sitting_id)


@pytest.mark.parametrize(("body", "why"), [
    ("""'{"event": "play", "player": "Alice", "count": 1, "count": 4}'""", 'the field "count" is given twice'),
    ("""'{"event": "play", "player": "Alice", "count": NaN}'""", "NaN is not a JSON number"),
])
def test_a_stored_event_is_read_as_strictly_as_a_transcript_line(tmp_path, body, why):
    """A row edited by hand that gives a field twice was read as its last (a play of 4 here), where a transcript
    line saying the same is refused: the referee does not guess which was meant, in a file or in its database."""
    path, sitting_id = with_event_1_stored_as(tmp_path, body)
    with pytest.raises(StorageError, match=f"event 1 of sitting 1 .* is damaged: {why}"):
        Referee(SqliteStore(path), sitting_id)


def test_a_stored_event_the_rules_refuse_is_named_by_its_number(tmp_path):
    path, sitting_id = with_event_1_stored_as(tmp_path, """'{"event": "play", "player": "Cara", "count": 1}'""")
    with pytest.raises(StorageError, match="event 1 of sitting 1 cannot be replayed: it is Alice's turn, not Cara's"):
        Referee(SqliteStore(path), sitting_id)


def test_a_sitting_name_damaged_on_disk_hides_no_other_sitting(tmp_path):
    path = tmp_path / "r.sqlite3"
    store = SqliteStore(path)
    store.create_sitting("Friday")
    store.create_sitting("Saturday")
    db = sqlite3.connect(path)
    db.execute("UPDATE sittings SET name = CAST(X'46FF' AS TEXT) WHERE id = 1")
    db.commit()
    assert [info.name for info in SqliteStore(path).sittings()] == ["F\ufffd", "Saturday"]


def test_a_damaged_time_hides_no_other_sitting(tmp_path):
    """A flipped bit in the time of Friday's last event (not UTF-8 any more) hid every sitting: the listing read the
    latest time as text."""
    path = tmp_path / "r.sqlite3"
    store = SqliteStore(path)
    friday, saturday = Referee.new(store, "Friday"), Referee.new(store, "Saturday")
    friday.record(Winner("Ann", players=("Ann", "Ben")))
    saturday.record(Winner("Cy", players=("Cy", "Dee")))
    store.close()
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE events SET recorded = CAST(X'b2303236' || CAST(substr(recorded, 5) AS BLOB) AS TEXT) "
                   "WHERE sitting_id = 1")
    db.close()
    listed = SqliteStore(path).sittings()
    assert [(info.name, info.events) for info in listed] == [("Friday", 1), ("Saturday", 1)]
    assert listed[0].active.startswith("\ufffd026")


def test_a_damaged_page_of_one_sittings_events_hides_no_other_sitting(tmp_path):
    """All sittings were counted in one query, so one damaged disk page among Friday's events ("database disk image
    is malformed") hid Saturday too: no sitting could be opened. Friday is now listed (its number of events read from
    its last one, past the damaged page), and opening it says that the file is damaged."""
    path = tmp_path / "r.sqlite3"
    store = SqliteStore(path)
    friday, saturday = Referee.new(store, "Friday"), Referee.new(store, "Saturday")
    for _ in range(150):
        friday.record(Winner("Xavierxx", players=("Xavierxx", "Yolandaa")))
    for _ in range(150):
        saturday.record(Winner("Ann", players=("Ann", "Ben")))
    store.close()
    data, page = bytearray(path.read_bytes()), 4096
    only_friday = [i for i in range(len(data) // page) if b"Ann" not in data[i * page:(i + 1) * page]
                   and data[i * page:(i + 1) * page].count(b'"player": "Xavierxx"') > 20]
    assert only_friday, "a page that holds only Friday's events"
    header = only_friday[len(only_friday) // 2] * page
    data[header + 3:header + 5] = b"\xff\xff"  # the page's count of cells: 65,535
    path.write_bytes(bytes(data))
    store = SqliteStore(path)
    assert [(info.name, info.events) for info in store.sittings()] == [("Friday", 150), ("Saturday", 150)]
    assert len(Referee(store, saturday.sitting_id).sitting.log) == 150
    with pytest.raises(StorageError, match="malformed .part of the file is damaged: restore a backup"):
        Referee(store, friday.sitting_id)


def test_a_damaged_page_of_the_sittings_table_hides_only_the_sittings_on_it(tmp_path):
    """One damaged disk page among the sittings' own rows stopped their listing, and so hid every sitting and every
    game. The sittings are now looked up one by one: those on the page are listed under a name that cannot be read
    and say the file is damaged when opened; the others open with their games."""
    path = tmp_path / "r.sqlite3"
    store = SqliteStore(path)
    for n in range(1, 301):
        store.create_sitting(f"Sitting {n:03d} " + "x" * 60)
    kept = Referee(store, 300)
    kept.record(Winner("Ann", players=("Ann", "Ben")))
    store.close()
    data, page = bytearray(path.read_bytes()), 4096
    names_only = [i for i in range(1, len(data) // page) if data[i * page:(i + 1) * page].count(b"x" * 60) > 20]
    assert len(names_only) > 2, "the sittings' rows fill several pages"
    damaged = names_only[1]
    on_it = {int(m) for m in re.findall(rb"Sitting (\d{3}) ", bytes(data[damaged * page:(damaged + 1) * page]))}
    header = damaged * page
    data[header + 3:header + 5] = b"\xff\xff"  # the page's count of cells: 65,535
    path.write_bytes(bytes(data))
    store = SqliteStore(path)
    listed = store.sittings()
    assert [info.id for info in listed] == list(range(1, 301)), "every sitting is listed"
    unreadable = {info.id for info in listed if info.name == "(a name that cannot be read)"}
    assert unreadable and unreadable <= on_it and 300 not in unreadable
    assert listed[0].name.startswith("Sitting 001") and listed[299].events == 1
    assert [row.winner for row in Referee(store, 300).state.table.rows] == ["Ann"]
    with pytest.raises(StorageError, match="malformed .part of the file is damaged: restore a backup"):
        Referee(store, min(unreadable))


def test_a_sitting_number_beyond_sqlite_is_no_sitting(tmp_path):
    with pytest.raises(StorageError, match="there is no sitting number 99999999999999999999"):
        SqliteStore(tmp_path / "r.sqlite3").events(99999999999999999999)


@pytest.mark.parametrize("name, stored", [("Fri\tday\n2\tfake", "Fri day 2 fake"), ("  Friday  night ", "Friday night")])
def test_a_sitting_name_is_one_line(tmp_path, name, stored):
    store = SqliteStore(tmp_path / "r.sqlite3")
    store.create_sitting(name)
    assert [info.name for info in store.sittings()] == [stored]


def test_a_sitting_name_too_long_for_a_listing_is_refused(tmp_path):
    store = SqliteStore(tmp_path / "r.sqlite3")
    with pytest.raises(StorageError, match="a sitting's name takes at most 80 characters, not 81"):
        store.create_sitting("x" * 81)
    assert store.sittings() == []


def test_a_sitting_renamed_keeps_its_log_and_games_and_a_bad_name_changes_nothing(tmp_path):
    """A typo in a sitting's name ("Fridya") was there for good: a new name now replaces it, checked as a new
    sitting's name is, and the games stay where they were."""
    store = SqliteStore(tmp_path / "r.sqlite3")
    referee = Referee.new(store, "Fridya")
    referee.record(Winner("Alice", players=PLAYERS))
    store.create_sitting("Saturday")
    store.rename_sitting(1, "  Friday\tat Maya's ")
    assert [s.name for s in store.sittings()] == ["Friday at Maya's", "Saturday"]
    assert [row.winner for row in Referee(store, 1).state.table.rows] == ["Alice"]
    with pytest.raises(StorageError, match="a sitting needs a name"):
        store.rename_sitting(1, " \n ")
    with pytest.raises(StorageError, match="at most 80 characters"):
        store.rename_sitting(1, "x" * 81)
    with pytest.raises(StorageError, match="there is no sitting number 7"):
        store.rename_sitting(7, "Sunday")
    with pytest.raises(StorageError, match=f"there is no sitting number {2**63}"):
        store.rename_sitting(2**63, "Sunday")
    assert [s.name for s in store.sittings()] == ["Friday at Maya's", "Saturday"]


def test_another_programs_sqlite_file_is_refused_and_left_as_it_was(tmp_path):
    path = tmp_path / "photos.db"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE albums (id INTEGER PRIMARY KEY)")
    other.commit()
    other.close()
    before = path.read_bytes()
    with pytest.raises(StorageError, match="belongs to another program .*'albums'"):
        SqliteStore(path)
    assert path.read_bytes() == before
    assert not Path(str(path) + "-wal").exists()


def test_a_folder_named_as_the_database_is_said_to_be_a_folder(tmp_path):
    with pytest.raises(StorageError, match="it is a folder; name a file in it instead"):
        SqliteStore(tmp_path)


def test_an_imported_sitting_stores_its_match_table_rows(tmp_path):
    path = tmp_path / "r.sqlite3"
    lines = ['{"event": "winner", "player": "Ben", "players": ["Alice", "Ben"]}', '{"event": "winner", "player": "Alice"}']
    Referee.import_transcript(SqliteStore(path), "Friday", lines)
    rows = sqlite3.connect(path).execute("SELECT number, places FROM games ORDER BY number").fetchall()
    assert rows == [(1, '["Ben"]'), (2, '["Alice"]')]


def test_a_full_disk_is_reported_as_such_and_changes_nothing(tmp_path):
    """SQLite rolls a transaction back itself when the disk fills; rolling back again used to hide why."""
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    db = referee.store._db
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")  # no page to spare
    players = ("A" * 3000, "B" * 3000)  # a row bigger than the free space of any page
    with pytest.raises(StorageError, match="cannot write to the database .*: database or disk is full"):
        referee.record(Winner(players[0], players=players))
    assert referee.sitting.log == [] and referee.state.table.rows == ()
    assert SqliteStore(path).events(referee.sitting_id) == []


#: The command line run on a full disk, as near as a test may come without one: no file may grow past 1 KiB, so
#: SQLite fails to make the index of the write-ahead journal (``-shm``) as it does on a full disk ("disk I/O error",
#: SQLITE_IOERR_SHMSIZE, a 3-byte ``-shm`` and an empty ``-wal`` left), and the free space reads as none. The
#: command is imported first, and no bytecode written after: a module's, cut at the limit, was kept for later runs.
#: With QUOTA_USED_UP set, the disk has room, and refuses this user more of it: SQLite's writes fail as above (a
#: quota's EDQUOT is the same SQLITE_IOERR_SHMSIZE to it), the free space reads as plenty, and the scratch write that
#: asks the disk about a quota is refused with EDQUOT.
_ON_A_FULL_DISK = """
import errno, os, resource, shutil, signal, sys, tempfile
from types import SimpleNamespace
from assistant.__main__ import run
sys.dont_write_bytecode = True  # for a module the command imports as it runs
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of stopping the process
resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.RLIM_INFINITY))
full, room = os.environ.get("FULL_DISK", ""), shutil.disk_usage  # FULL_DISK: only the disk of that folder is full
shutil.disk_usage = lambda path: (SimpleNamespace(total=10**9, used=10**9, free=0)
                                  if str(path).startswith(full) else room(path))
if os.environ.get("QUOTA_USED_UP"):
    def refused(*args, **kwargs):
        raise OSError(errno.EDQUOT, os.strerror(errno.EDQUOT))
    shutil.disk_usage, tempfile.TemporaryFile = lambda path: SimpleNamespace(total=10**9, used=0, free=10**9), refused
sys.exit(run())
"""


def _on_a_full_disk(*args: str, full: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """The command line run on a full disk: every disk, or (``full``) the one of that folder alone."""
    root = Path(__file__).resolve().parents[2]
    return subprocess.run([sys.executable, "-c", _ON_A_FULL_DISK, *args], capture_output=True, text=True, cwd=root,
                          env={**(os.environ if env is None else env), "FULL_DISK": str(full or "")})


def _past_a_used_up_quota(*args: str) -> subprocess.CompletedProcess:
    """The command line run where this user's disk quota is used up, on a disk with room (see _ON_A_FULL_DISK)."""
    return _on_a_full_disk(*args, env={**os.environ, "QUOTA_USED_UP": "1"})


def test_a_command_run_as_on_a_full_disk_leaves_no_bytecode_cut_short(tmp_path):
    """Python writes a module's bytecode beside it as it first imports it: under the limit of 1 KiB a file, that of
    the command line was cut at 1 KiB and kept, and every later `python -m assistant` failed ("marshal data too
    short") until it was deleted (a review, where Python writes bytecode: ./test.sh does)."""
    cache = tmp_path / "pycache"
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)  # the bytecode in a folder of its own, not beside the project's files
    runs = [_on_a_full_disk("sittings", "--db", str(tmp_path / "none.sqlite3"), env=env) for _ in range(2)]
    assert [r.returncode for r in runs] == [2, 2] and "there is no database" in runs[1].stderr, runs[1].stderr
    for written in cache.rglob("*.pyc"):
        marshal.loads(written.read_bytes()[16:])  # whole: a file cut short raises


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _sizes(folder: Path) -> dict[str, int]:
    """The files of a folder by size, for one that this process holds open: reading them here (open, then close) would
    let go of the referee's locks on them, which the command line then takes for no referee running."""
    return {p.name: p.stat().st_size for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("left_beside", [{}, {"r.sqlite3-shm": b"\0\0\0", "r.sqlite3-wal": b""}])
def test_a_database_on_a_full_disk_is_listed_and_exported_and_nothing_is_left_beside_it(tmp_path, left_beside):
    """On a full disk `sittings` and `export` said "disk I/O error" and left a 3-byte ``-shm`` beside the file: a table
    whose disk filled up could not even export its games elsewhere (an audit, on a full tmpfs). A file with nothing in
    its journal is read as it lies. The same holds where an earlier try on the full disk left that ``-shm`` (no index:
    SQLite could not make it) and an empty ``-wal``, which are not the command's to remove."""
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(Winner("Alice", players=PLAYERS))
    referee.store.close()
    for name, content in left_beside.items():
        (tmp_path / name).write_bytes(content)
    before = _files(tmp_path)
    listed = _on_a_full_disk("sittings", "--db", str(path))
    assert listed.returncode == 0 and listed.stdout.split("\t")[:2] == ["1", "Friday"], listed.stderr
    exported = _on_a_full_disk("export", "1", "--db", str(path))
    assert exported.returncode == 0 and exported.stdout == referee.transcript(), exported.stderr
    table = _on_a_full_disk("export", "1", "--csv", "--db", str(path))
    assert table.returncode == 0 and table.stdout.splitlines() == referee.table_csv().splitlines(), table.stderr
    assert _files(tmp_path) == before


def test_a_database_past_a_used_up_quota_is_listed_and_exported_as_on_a_full_disk(tmp_path):
    """Past a used-up disk quota the disk shows room, so `sittings` and `export` read the file through an index made
    beside it, which the quota refuses: they said "disk I/O error (the disk quota is used up)" and showed nothing,
    where on a full disk they read the file as it lies. Once the quota is found, they read it as on a full disk. The
    file is left as it was; beside it only what SQLite's refused try leaves, which holds nothing: an empty journal
    and an index cut at 3 bytes."""
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(Winner("Alice", players=PLAYERS))
    referee.store.close()
    before = path.read_bytes()
    listed = _past_a_used_up_quota("sittings", "--db", str(path))
    assert listed.returncode == 0 and listed.stdout.split("\t")[:2] == ["1", "Friday"], listed.stderr
    exported = _past_a_used_up_quota("export", "1", "--db", str(path))
    assert exported.returncode == 0 and exported.stdout == referee.transcript(), exported.stderr
    table = _past_a_used_up_quota("export", "1", "--csv", "--db", str(path))
    assert table.returncode == 0 and table.stdout.splitlines() == referee.table_csv().splitlines(), table.stderr
    assert path.read_bytes() == before
    assert set(_sizes(tmp_path).items()) <= {("r.sqlite3", len(before)), ("r.sqlite3-wal", 0), ("r.sqlite3-shm", 3)}


def test_a_database_reached_through_a_link_is_read_as_on_the_full_disk_it_lies_on(tmp_path):
    """The disk was asked about where the link lies, not the file: a database on a full disk named by a link on
    another disk was opened to write, and `export` said "disk I/O error" and left a ``-shm`` and a ``-wal`` beside it
    (a review). SQLite keeps those beside the file itself, so its disk is the one that counts."""
    full, elsewhere = tmp_path / "full", tmp_path / "elsewhere"
    full.mkdir()
    elsewhere.mkdir()
    path = full / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(Winner("Alice", players=PLAYERS))
    referee.store.close()
    (elsewhere / "r.sqlite3").symlink_to(path)
    before = _files(full)
    exported = _on_a_full_disk("export", "1", "--db", str(elsewhere / "r.sqlite3"), full=full)
    assert exported.returncode == 0 and exported.stdout == referee.transcript(), exported.stderr
    assert _files(full) == before


@pytest.mark.parametrize("refused, cause, left", [
    (_on_a_full_disk, "the disk is full", {}),
    (_past_a_used_up_quota, "the disk quota is used up", {"r.sqlite3-shm": b"\0\0\0"})])  # see the test above
def test_events_only_in_the_journal_of_a_file_on_a_full_disk_are_said_to_be_there_not_left_out(tmp_path, refused, cause,
                                                                                               left):
    """A file read as it lies does not read its write-ahead journal (``-wal``): where the journal holds events and
    the disk has no room for the index it is read through, the listing and the export would show the sitting without
    them, as if they were lost. They say where the events are and what to do instead, and leave the files alone. So
    too past a used-up quota, where the disk has room for others."""
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(Winner("Alice", players=PLAYERS))
    with closing(sqlite3.connect(path)) as reader:
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM events").fetchone()  # its snapshot keeps the next event in the journal
        referee.record(Winner("Ben"))
    copied = tmp_path / "copy"  # the database and its journal, copied as they are, without the index
    copied.mkdir()
    subprocess.run(["cp", tmp_path / "r.sqlite3", tmp_path / "r.sqlite3-wal", copied], check=True)  # see _sizes
    referee.store.close()
    assert (copied / "r.sqlite3-wal").stat().st_size > 0
    before = _files(copied)
    for command in (["sittings"], ["export", "1"]):
        result = refused(*command, "--db", str(copied / "r.sqlite3"))
        assert result.returncode == 2 and result.stdout == "", result.stdout
        assert "its latest events are in r.sqlite3-wal" in result.stderr and cause in result.stderr
        assert "copy r.sqlite3 and r.sqlite3-wal together to another disk" in result.stderr, result.stderr
        assert _files(copied) == {**before, **left}
    with_room = subprocess.run([sys.executable, "-m", "assistant", "export", "1", "--db", str(copied / "r.sqlite3")],
                               capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])
    assert with_room.stdout == referee.transcript(), "with room made, every event is there"


def test_a_database_held_by_a_running_referee_on_a_full_disk_is_exported_whole_and_left_as_it_was(tmp_path):
    """While the referee runs, the index beside the file is made: reading through it needs no room, and the events
    still in the journal are exported with the rest. The referee's files are left as they are."""
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(Winner("Alice", players=PLAYERS))
    with closing(sqlite3.connect(path)) as reader:
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM events").fetchone()
        referee.record(Winner("Ben"))
    before = _sizes(tmp_path)
    assert before["r.sqlite3-wal"] > 0
    exported = _on_a_full_disk("export", "1", "--db", str(path))
    assert exported.returncode == 0 and exported.stdout == referee.transcript(), exported.stderr
    assert _sizes(tmp_path) == before
    referee.record(Winner("Cara"))
    assert [row.winner for row in Referee(SqliteStore(path), 1).state.table.rows] == ["Alice", "Ben", "Cara"]


WRITER = textwrap.dedent(
    """
    import sys
    from assistant import NewGame, Play, Winner
    from assistant.referee import Referee
    from assistant.storage import SqliteStore
    from tests.assistant.randomgame import legal_events
    from assistant import Rules
    import random

    store = SqliteStore(sys.argv[1])
    referee = Referee.new(store, "crash")
    rng = random.Random(int(sys.argv[2]))
    names = ("Alice", "Ben", "Cara", "Dev")
    rules = Rules(max_cards=None, passing=True)
    while True:
        menu = legal_events(referee.state, rng.randrange, names, rules, referee.sitting.can_undo)
        referee.record(menu[rng.randrange(len(menu))])
        print(len(referee.sitting.log), flush=True)  # acknowledged
    """
)


@pytest.mark.parametrize("seed", range(6))
def test_killing_a_writer_at_a_random_moment_loses_no_acknowledged_event(tmp_path, seed):
    path = tmp_path / "crash.sqlite3"
    root = Path(__file__).resolve().parents[2]
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(seed)], stdout=subprocess.PIPE, text=True, cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    acknowledged = 0
    target = 20 + seed * 37
    for line in writer.stdout:
        acknowledged = int(line)
        if acknowledged >= target:
            break
    writer.kill()  # SIGKILL: no cleanup, possibly in the middle of a transaction
    writer.wait()
    assert acknowledged >= target
    store = SqliteStore(path)
    (info,) = store.sittings()
    assert info.events >= acknowledged
    reopened = Referee(store, info.id)  # replays every stored event: nothing corrupt, nothing illegal
    assert len(reopened.sitting.log) == info.events
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def _sqlite_file(path: Path, *statements: str) -> bytes:
    """Another program's SQLite file, made with ``statements``; its bytes, to compare after."""
    other = sqlite3.connect(path)
    for statement in statements:
        other.execute(statement)
    other.commit()
    other.close()
    return path.read_bytes()


@pytest.mark.parametrize("statements, why", [
    (["CREATE TABLE events (id INTEGER PRIMARY KEY, title TEXT, starts TEXT)"], "its table 'events' has other columns"),
    (["CREATE TABLE games (name TEXT, players INTEGER)"], "its table 'games' has other columns"),
    (["CREATE TABLE t (x)", "CREATE VIEW sittings AS SELECT x FROM t", "DROP TABLE t"], "it holds the view 'sittings'"),
    (["PRAGMA application_id = 1234", "CREATE TABLE sittings (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
      "created TEXT NOT NULL)"], "its header carries another program's mark"),
])
def test_another_programs_file_with_the_referees_table_names_is_refused_and_left_as_it_was(tmp_path, statements, why):
    """A calendar's "events" or a board-game log's "games" is not the referee's table: the file must not be switched
    to WAL, get tables added, and then fail on a column."""
    path = tmp_path / "calendar.sqlite3"
    before = _sqlite_file(path, *statements)
    with pytest.raises(StorageError, match=f"belongs to another program \\({why}"):
        SqliteStore(path)
    assert path.read_bytes() == before and not Path(f"{path}-wal").exists()


def test_a_new_database_carries_the_referees_mark_and_an_older_unmarked_one_still_opens(tmp_path):
    new = SqliteStore(tmp_path / "new.sqlite3")
    assert new.created
    raw = sqlite3.connect(tmp_path / "new.sqlite3")
    assert raw.execute("PRAGMA application_id").fetchone()[0] == 0x43485246
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 1
    # a database from before the mark: the referee's three tables with their columns, its sittings kept
    old = tmp_path / "old.sqlite3"
    _sqlite_file(old, *_FIRST_TABLES, "INSERT INTO sittings (name, created) VALUES ('Friday', '2026-11-27T20:00:00+00:00')")
    reopened = SqliteStore(old)
    assert not reopened.created and [s.name for s in reopened.sittings()] == ["Friday"]


#: The referee's tables as its first versions made them (unmarked, then marked as version 1).
_FIRST_TABLES = [f"CREATE TABLE {name} ({', '.join(columns)})" for name, columns in {
    "sittings": ("id INTEGER PRIMARY KEY", "name TEXT NOT NULL", "created TEXT NOT NULL"),
    "events": ("sitting_id", "seq", "body", "recorded"),
    "games": ("sitting_id", "number", "kind", "players", "places", "tracked")}.items()]


@pytest.mark.parametrize("mark", [[], ["PRAGMA application_id = 1128813126", "PRAGMA user_version = 1"]],
                         ids=["unmarked", "version 1"])
def test_an_older_database_is_brought_up_to_date_and_keeps_its_games(tmp_path, mark):
    """Open calls are kept in a table added since: a file made before gets that table and the mark, and loses
    nothing; its version stays 1, so a referee from before the table still opens it (it checks the version only)."""
    path = tmp_path / "old.sqlite3"
    game = json.dumps(to_dict(NewGame(PLAYERS)))
    _sqlite_file(path, *mark, *_FIRST_TABLES, "INSERT INTO sittings (name, created) VALUES ('Friday', '2026-11-27')",
                 f"INSERT INTO events VALUES (1, 0, '{game}', '2026-11-27')")
    referee = Referee(SqliteStore(path), 1)
    assert referee.sitting.log == [NewGame(PLAYERS)]
    referee.record(Play("Alice", 2, Rank.ACE))
    referee.keep_call(OpenCall(2, "Cara"))
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA application_id").fetchone()[0] == 0x43485246
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 1
    assert Referee(SqliteStore(path), 1).open_call() == OpenCall(2, "Cara")


def test_an_event_from_a_screen_that_did_not_show_the_open_call_is_refused_and_keeps_the_call(tmp_path):
    referee = Referee.new(SqliteStore(tmp_path / "r.sqlite3"), "Friday")
    referee.record(NewGame(PLAYERS))
    referee.record(Play("Alice", 2))
    opened = referee.keep_call(OpenCall(2, "Cara"))
    other = Referee(SqliteStore(tmp_path / "r.sqlite3"), referee.sitting_id)
    with pytest.raises(CallOpenElsewhere, match="Cara has called Cheat! in another window"):
        other.record(Undo(), at=2, shown=None)
    assert other.open_call() == opened and len(other.sitting.log) == 2
    other.record(Undo(), at=2, shown=opened)  # a screen that showed it may take the play back, and the call with it
    assert other.open_call() is None and len(other.sitting.log) == 3


def test_a_database_from_a_newer_referee_is_refused(tmp_path):
    path = tmp_path / "r.sqlite3"
    SqliteStore(path).close()
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA user_version = 2")
    raw.close()
    with pytest.raises(StorageError, match="a newer version of the referee wrote it"):
        SqliteStore(path)


def test_a_path_the_system_refuses_to_look_at_is_a_storage_error(tmp_path):
    # a name longer than the file system takes: an OSError from the first look at the path, said in words
    with pytest.raises(StorageError, match="cannot open the database .*: file name too long"):
        SqliteStore(tmp_path / ("x" * 300) / "r.sqlite3")


def test_a_database_deleted_while_open_refuses_the_next_event_instead_of_losing_it(tmp_path):
    """SQLite goes on writing into a deleted file through an open connection: every tap would be acknowledged, and
    all of them lost when the referee stops."""
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(NewGame(PLAYERS))
    for name in ("r.sqlite3", "r.sqlite3-wal", "r.sqlite3-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    before = referee.state
    with pytest.raises(StorageError, match="was deleted while the referee was running"):
        referee.record(Undo())
    assert referee.state is before
    # a new database opened there says it is new: the app tells the table, which can still put the file back
    assert SqliteStore(path).created


def test_a_database_replaced_while_open_is_not_written_over_and_the_file_now_there_is_read(tmp_path):
    """Refused with "start the referee again to open the file now there", while a new store (each run of the page
    opens one) opened it at once. The write is refused, and the store reads and writes the file now there."""
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    other = tmp_path / "backup.sqlite3"
    Referee.new(SqliteStore(other), "Saturday").store.close()
    os.replace(other, path)
    with pytest.raises(FileReplaced, match="was replaced by another file while it was open .a backup put back.., so "
                                           "nothing was written: the file now there is the one read and written"):
        referee.record(NewGame(PLAYERS))
    assert [s.name for s in SqliteStore(path).sittings()] == ["Saturday"]
    assert [s.name for s in referee.store.sittings()] == ["Saturday"]
    Referee(referee.store, 1).record(NewGame(PLAYERS))
    assert len(SqliteStore(path).events(1)) == 1


def _saturday(path, events: int, call: OpenCall | None = None) -> Referee:
    """A backup at ``path``: sitting 1, "Saturday", its first ``events`` events of a game of five (a call open where
    ``call`` is given), closed as a backup lies."""
    saturday = Referee.new(SqliteStore(path), "Saturday")
    for event in (NewGame(PLAYERS + ("Eve",)), Play("Alice", 2), Play("Ben", 2))[:events]:
        saturday.record(event)
    if call is not None:
        saturday.keep_call(call)
    saturday.store.close()
    return saturday


def _friday(path) -> Referee:
    """The page's sitting at ``path``: sitting 1, "Friday", three events of a game of four."""
    page = Referee.new(SqliteStore(path), "Friday")
    for event in (NewGame(PLAYERS), Play("Alice", 1), Play("Ben", 1)):
        page.record(event)
    return page


#: What a write on a file replaced under the page is refused with.
ON_A_REPLACED_FILE = "no longer holds the game as it was read: the file was replaced"


@pytest.mark.parametrize("events", [1, 3], ids=["fewer", "as many"])
def test_a_backup_copied_over_the_database_is_not_written_over_with_the_game_read_before(tmp_path, events):
    """``cp backup.sqlite3 referee.sqlite3`` keeps the file on disk (its inode), and its journal files beside it: the
    page's next event wrote the game it had read (its connection's cache of the old file's pages) into the backup,
    whose own deal was lost; read afresh, it went into the backup's sitting after a gap, or after another game's
    plays. The event is refused, and the backup is left as it was."""
    path, backup = tmp_path / "r.sqlite3", tmp_path / "backup.sqlite3"
    saturday, page = _saturday(backup, events), _friday(path)
    shutil.copyfile(backup, path)
    with pytest.raises(FileReplaced, match=ON_A_REPLACED_FILE):
        page.record(Play("Cara", 1))
    assert SqliteStore(path).events(1) == saturday.sitting.log
    assert Referee(page.store, 1).state == saturday.state, "the store reads the backup"


@pytest.mark.parametrize("events", [1, 3], ids=["fewer", "as many"])
def test_a_call_tapped_after_a_backup_was_copied_over_the_database_is_not_kept_in_it(tmp_path, events):
    """The event was refused, and a Cheat! call was not: tapped on the page's game after ``cp backup.sqlite3
    referee.sqlite3``, a call was kept in the backup's sitting of as many events, unsaid (its verdict then went into the
    backup's game), and one of fewer events was said to be another window's change. Refused as the event is."""
    path, backup = tmp_path / "r.sqlite3", tmp_path / "backup.sqlite3"
    _saturday(backup, events)
    page = _friday(path)
    shutil.copyfile(backup, path)
    with pytest.raises(FileReplaced, match=ON_A_REPLACED_FILE):
        page.keep_call(OpenCall(3, "Dev"))
    assert SqliteStore(path).open_call(1) is None


@pytest.mark.parametrize("backup", ["empty", "a game", "none"])
def test_a_deal_on_an_empty_sitting_after_a_backup_was_copied_over_the_database_is_not_kept_in_it(tmp_path, backup):
    """An empty sitting has no event to check the file by: after ``cp backup.sqlite3 referee.sqlite3``, the page's
    first deal went into the backup's empty sitting of the same number, unsaid, was said to be another window's change
    where the backup's sitting held a game, and where the backup held no such sitting, that there was none. The
    sitting's own row is checked instead (when it was made), and the deal refused as any tap on a replaced file is."""
    path, copied = tmp_path / "r.sqlite3", tmp_path / "backup.sqlite3"
    saturday = Referee.new(SqliteStore(copied), "Saturday")
    if backup == "a game":
        saturday.record(NewGame(PLAYERS + ("Eve",)))
    saturday.store.close()
    page_store = SqliteStore(path)
    if backup == "none":
        Referee.new(page_store, "Thursday")
    page = Referee.new(page_store, "Friday")
    shutil.copyfile(copied, path)
    with pytest.raises(FileReplaced, match=ON_A_REPLACED_FILE):
        page.record(NewGame(PLAYERS))
    assert [(s.name, s.events) for s in SqliteStore(path).sittings()] == [("Saturday", len(saturday.sitting.log))]


@pytest.mark.parametrize("backup_call", [None, OpenCall(3, "Dev")], ids=["none open", "the same call open"])
def test_a_call_cancelled_after_a_backup_was_copied_over_the_database_is_said_to_be_on_a_replaced_file(tmp_path,
                                                                                                      backup_call):
    """Cancelling the page's open call after ``cp backup.sqlite3 referee.sqlite3`` was said to be another window's
    change where the backup held no call, and cancelled the backup's own call where it held one like it, unsaid.
    Refused as an event or a call is (FileReplaced), the backup's call left open."""
    path, backup = tmp_path / "r.sqlite3", tmp_path / "backup.sqlite3"
    _saturday(backup, 3, backup_call)
    page = _friday(path)
    call = page.keep_call(OpenCall(3, "Dev"))
    shutil.copyfile(backup, path)
    with pytest.raises(FileReplaced, match=ON_A_REPLACED_FILE):
        page.drop_call(call)
    assert SqliteStore(path).open_call(1) == backup_call


def test_opening_the_database_again_keeps_its_lock_so_another_programs_import_is_not_written_over(tmp_path):
    """A page's run opens the database again while the referee holds it. Reading its header with Python's open()
    and close() let go of the referee's lock on the file (a POSIX lock goes with any close of the file in the
    process): the next program to close it took the journal (``-wal``, ``-shm``) away, and the referee wrote on
    through its own copy, unseen by others, over a sitting imported meanwhile ("imported 6 events", then 0)."""
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(NewGame(PLAYERS))
    SqliteStore(path).close()  # the page's next run
    transcript = tmp_path / "saturday.jsonl"
    transcript.write_text(referee.transcript())
    root = Path(__file__).resolve().parents[2]
    for command in (["sittings"], ["import", str(transcript), "--name", "Saturday"]):
        subprocess.run([sys.executable, "-m", "assistant", *command, "--db", str(path)], cwd=root, check=True,
                       capture_output=True, env={**os.environ, "PYTHONPATH": str(root)})
    assert (tmp_path / "r.sqlite3-wal").exists() and (tmp_path / "r.sqlite3-shm").exists()
    referee.store.sittings()
    referee.record(Play("Alice", 1))
    assert [(s.name, s.events) for s in referee.store.sittings()] == [("Friday", 2), ("Saturday", 1)]
    assert [(s.name, s.events) for s in SqliteStore(path).sittings()] == [("Friday", 2), ("Saturday", 1)]


def _open_at_once(path: str, go, results) -> None:
    go.wait()
    try:
        SqliteStore(path).close()
        results.put("ok")
    except StorageError as error:
        results.put(str(error))


def test_referees_starting_together_on_a_new_file_all_open_it(tmp_path):
    """Switching a new file to WAL answers "locked" at once while another process does the same; two servers
    started together (or a server and the command line) must both open it."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    for trial in range(6):
        path = str(tmp_path / f"r{trial}.sqlite3")
        go, results = context.Event(), context.Queue()
        workers = [context.Process(target=_open_at_once, args=(path, go, results)) for _ in range(4)]
        for worker in workers:
            worker.start()
        go.set()
        answers = [results.get(timeout=30) for _ in workers]
        for worker in workers:
            worker.join(10)
        assert answers == ["ok"] * 4, answers
        assert SqliteStore(path).sittings() == []


def test_a_reader_holding_the_database_open_does_not_hold_up_a_tap(tmp_path):
    """The journal is emptied after each event only where no reader holds it: waiting for a viewer's open read
    would make every tap wait the full busy timeout (10 s)."""
    import time

    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    viewer = sqlite3.connect(path, isolation_level=None)
    viewer.execute("BEGIN")
    viewer.execute("SELECT COUNT(*) FROM events").fetchall()  # a snapshot held open, as a database viewer does
    start = time.monotonic()
    referee.record(NewGame(PLAYERS))
    assert time.monotonic() - start < 2
    viewer.execute("COMMIT")
    assert SqliteStore(path).events(referee.sitting_id) == [NewGame(PLAYERS)]


def test_another_programs_file_in_wal_mode_is_refused_without_its_journal_being_copied_in(tmp_path):
    path = tmp_path / "notes.sqlite3"
    # the other program ended without closing its database (killed, crashed): its journal is left beside the file
    subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
        import os, sqlite3
        db = sqlite3.connect({str(path)!r}, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE notes (text)")
        db.execute("INSERT INTO notes VALUES ('kept in the journal')")
        os._exit(0)
    """)], check=True)
    before = path.read_bytes(), Path(f"{path}-wal").read_bytes()
    with pytest.raises(StorageError, match="belongs to another program"):
        SqliteStore(path)
    assert (path.read_bytes(), Path(f"{path}-wal").read_bytes()) == before


def test_an_unmarked_file_with_only_some_of_the_referees_tables_is_not_taken_for_its_database(tmp_path):
    path = tmp_path / "club.sqlite3"
    before = _sqlite_file(path, "CREATE TABLE sittings (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created TEXT NOT NULL)")
    with pytest.raises(StorageError, match="it holds only some of the referee's tables"):
        SqliteStore(path)
    assert path.read_bytes() == before


def _called(tmp_path) -> Referee:
    """A sitting where Alice has just played two aces, open to a call."""
    referee = Referee.new(SqliteStore(tmp_path / "r.sqlite3"), "Friday")
    referee.record(NewGame(PLAYERS))
    referee.record(Play("Alice", 2, Rank.ACE))
    return referee


def test_an_open_call_and_its_cards_survive_a_restart_and_show_in_another_window(tmp_path):
    """Cheat! is called and the cards are being tapped in when the server dies (or a second window opens): the call
    is found as it was, where it used to live only in the first window's address."""
    referee = _called(tmp_path)
    opened = referee.keep_call(OpenCall(2, "Cara"))
    referee.keep_call(OpenCall(2, "Cara", ranks("A", "7")), replacing=opened)
    referee.store.close()
    again = Referee(SqliteStore(tmp_path / "r.sqlite3"), referee.sitting_id)
    assert again.open_call() == OpenCall(2, "Cara", ranks("A", "7"))


def test_a_verdict_taken_back_to_be_corrected_reopens_its_call_with_its_cards_in_one_commit(tmp_path):
    referee = _called(tmp_path)
    referee.record(call("Cara", "A", "7"))
    reopened = referee.reopen_last_call()
    # the undo counts: a call is placed by the log's length, undos and all
    assert reopened == OpenCall(4, "Cara", ranks("A", "7"), original=ranks("A", "7"))
    assert Referee(referee.store, referee.sitting_id).open_call() == reopened
    assert Referee(referee.store, referee.sitting_id).sitting.log[-1] == Undo()


def test_a_correction_that_cannot_be_written_takes_no_verdict_back(tmp_path, monkeypatch):
    """The undo and the reopened call are one commit: a failure leaves the verdict as it was, not taken back with
    its cards lost."""
    referee = _called(tmp_path)
    referee.record(call("Cara", "A", "7"))
    import assistant.storage as storage

    def full(*args):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(storage, "_write_call", full)
    with pytest.raises(StorageError, match="disk is full"):
        referee.reopen_last_call()
    again = Referee(referee.store, referee.sitting_id)
    assert again.sitting.log[-1] == call("Cara", "A", "7") and again.open_call() is None


def test_only_a_verdict_can_be_reopened(tmp_path):
    referee = _called(tmp_path)
    with pytest.raises(IllegalAction, match="that verdict is no longer the last action"):
        referee.reopen_last_call()
    assert len(Referee(referee.store, referee.sitting_id).sitting.log) == 2


def test_a_correction_tapped_on_the_screen_before_the_verdict_was_corrected_reopens_nothing(tmp_path):
    """"Correct the revealed cards" tapped twice: the second tap, made on the verdict's screen, must not take back
    the play called once the first has reopened the call."""
    referee = _called(tmp_path)
    referee.record(call("Cara", "A", "7"))
    drawn_at = len(referee.sitting.log)
    referee.reopen_last_call(at=drawn_at)
    with pytest.raises(MovedOn):
        referee.reopen_last_call(at=drawn_at)
    again = Referee(referee.store, referee.sitting_id)
    assert len(again.sitting.log) == drawn_at + 1 and again.open_call() is not None


@pytest.mark.parametrize("elsewhere, why", [
    ("cancel", "Cara's call was cancelled in another window, and Dev has called Cheat! since"),
    ("cards", "the revealed cards were changed in another window"),
    ("settle", "Cara's call was cancelled or settled in another window"),
])
def test_a_verdict_from_a_window_not_yet_redrawn_is_refused_where_the_call_changed(tmp_path, elsewhere, why):
    """Apply the verdict in a window that still shows the call as it was: another window cancelled it (and maybe a
    new call is open), tapped in other cards, or gave the verdict already. Nothing is recorded."""
    referee = _called(tmp_path)
    shown = referee.keep_call(OpenCall(2, "Cara", ranks("A")))
    other = Referee(referee.store, referee.sitting_id)
    if elsewhere == "cancel":
        other.drop_call(shown)
        other.keep_call(OpenCall(2, "Dev"))
    elif elsewhere == "cards":
        other.keep_call(OpenCall(2, "Cara", ranks("A", "7")), replacing=shown)
    else:
        other.settle(shown, ranks("A", "A"))
    log = list(other.sitting.log)
    with pytest.raises(StaleSitting, match=why):
        referee.settle(shown, ranks("A", "A"))
    assert Referee(referee.store, referee.sitting_id).sitting.log == log


def test_a_cancel_from_a_window_not_yet_redrawn_leaves_another_call_alone(tmp_path):
    referee = _called(tmp_path)
    shown = referee.keep_call(OpenCall(2, "Cara"))
    other = Referee(referee.store, referee.sitting_id)
    other.drop_call(shown)
    newer = other.keep_call(OpenCall(2, "Dev", ranks("7")))
    with pytest.raises(StaleSitting, match="Cara's call was cancelled in another window, and Dev has called"):
        referee.drop_call(shown)
    assert other.open_call() == newer


def test_a_second_tap_on_the_callers_name_keeps_the_cards_tapped_in(tmp_path):
    """A window that had not yet shown the call, tapped on the same caller: the call stays as it is."""
    referee = _called(tmp_path)
    opened = referee.keep_call(OpenCall(2, "Cara"))
    referee.keep_call(OpenCall(2, "Cara", ranks("K")), replacing=opened)
    assert referee.keep_call(OpenCall(2, "Cara")) == OpenCall(2, "Cara", ranks("K"))
    assert referee.open_call() == OpenCall(2, "Cara", ranks("K"))


def test_cards_tapped_in_over_cards_another_window_changed_are_refused(tmp_path):
    referee = _called(tmp_path)
    opened = referee.keep_call(OpenCall(2, "Cara"))
    other = Referee(referee.store, referee.sitting_id)
    other.keep_call(OpenCall(2, "Cara", ranks("A")), replacing=opened)
    with pytest.raises(StaleSitting, match="the revealed cards were changed in another window"):
        referee.keep_call(OpenCall(2, "Cara", ranks("7")), replacing=opened)
    assert referee.open_call() == OpenCall(2, "Cara", ranks("A"))


def test_another_players_call_on_the_same_play_is_refused_the_first_stands(tmp_path):
    referee = _called(tmp_path)
    referee.keep_call(OpenCall(2, "Cara"))
    with pytest.raises(CalledFirst, match="Cara called Cheat! on this play first") as refused:
        Referee(referee.store, referee.sitting_id).keep_call(OpenCall(2, "Dev"))
    assert refused.value.caller == "Cara" and referee.open_call() == OpenCall(2, "Cara")


def test_the_verdict_or_any_other_event_closes_the_open_call(tmp_path):
    referee = _called(tmp_path)
    shown = referee.keep_call(OpenCall(2, "Cara", ranks("A")))
    referee.settle(shown, ranks("A", "A"))
    assert referee.open_call() is None and referee.store.open_call(referee.sitting_id) is None
    referee.record(Undo())  # back to the play, open to a call again: the old call is not reopened
    assert referee.open_call() is None


def test_a_call_kept_after_another_window_moved_the_game_on_is_refused_and_stores_nothing(tmp_path):
    referee = _called(tmp_path)
    other = Referee(referee.store, referee.sitting_id)
    other.record(Play("Ben", 1, Rank.TWO))  # nobody called in the other window: Ben played on
    with pytest.raises(StaleSitting):
        referee.keep_call(OpenCall(2, "Cara"))
    assert referee.store.open_call(referee.sitting_id) is None
    assert len(referee.sitting.log) == 3  # reloaded: it shows Ben's play now


def test_a_call_left_behind_by_a_later_event_is_not_shown(tmp_path):
    """A window that has not seen another's event yet must not reopen that window's call on the wrong play."""
    referee = _called(tmp_path)
    stale = Referee(referee.store, referee.sitting_id)
    referee.record(Play("Ben", 1, Rank.TWO))
    referee.keep_call(OpenCall(3, "Cara"))
    assert stale.open_call() is None
    stale.reload()
    assert stale.open_call() == OpenCall(3, "Cara")


@pytest.mark.parametrize("caller, at, why", [
    ("Alice", 2, "Alice cannot call their own play"),
    ("Zoe", 2, "Zoe is not playing in this game"),
])
def test_a_call_the_rules_refuse_is_not_kept(tmp_path, caller, at, why):
    referee = _called(tmp_path)
    with pytest.raises(IllegalAction, match=why):
        referee.keep_call(OpenCall(at, caller))
    assert referee.store.open_call(referee.sitting_id) is None


def test_a_call_tapped_on_an_earlier_play_is_not_kept(tmp_path):
    """A Cheat! tapped on the screen as it stood before Alice's play would be a call on the wrong play."""
    referee = _called(tmp_path)
    with pytest.raises(MovedOn, match="moved on"):
        referee.keep_call(OpenCall(1, "Cara"))
    assert referee.store.open_call(referee.sitting_id) is None


@pytest.mark.parametrize("event", [Undo(), Winner(player="Ben"), Play("Ben", 1, Rank.TWO)])
def test_a_tap_made_before_the_last_event_records_nothing(tmp_path, event):
    """A second tap that waited behind the first in one window (Undo tapped twice took back two events, a winner
    tapped twice recorded two games) was made on the screen as it stood before the first tap's event: refused, with
    nothing stored, while the same tap on the game as it stands is recorded."""
    referee = _called(tmp_path)
    drawn_at = len(referee.sitting.log) - 1  # the screen drawn before Alice's play
    with pytest.raises(MovedOn):
        referee.record(event, at=drawn_at)
    assert len(referee.store.events(referee.sitting_id)) == 2
    assert Referee(referee.store, referee.sitting_id).state == referee.state
    referee.record(event, at=drawn_at + 1)
    assert len(referee.store.events(referee.sitting_id)) == 3


def test_a_cancelled_call_is_forgotten(tmp_path):
    referee = _called(tmp_path)
    shown = referee.keep_call(OpenCall(2, "Cara", ranks("K")))
    referee.drop_call(shown)
    assert Referee(referee.store, referee.sitting_id).open_call() is None
    assert referee.keep_call(OpenCall(2, "Dev")) == OpenCall(2, "Dev"), "another player may call now"


@pytest.mark.parametrize("revealed", ["not json", '"A"', '["A", "Z"]', "[[1]]", "[" * 100_000])
def test_an_open_call_damaged_on_disk_is_no_call_and_leaves_the_game_alone(tmp_path, revealed):
    referee = _called(tmp_path)
    referee.keep_call(OpenCall(2, "Cara"))
    raw = sqlite3.connect(tmp_path / "r.sqlite3")
    raw.execute("UPDATE open_calls SET revealed = ?", (revealed,))
    raw.commit()
    again = Referee(SqliteStore(tmp_path / "r.sqlite3"), referee.sitting_id)
    assert again.open_call() is None and len(again.sitting.log) == 2


# --- two windows on one call, in any order (hypothesis) -------------------------------------------------------------

#: (window, whether it redraws first, what it does, which of the players who may call, a rank): each window acts on
#: the call as it last drew it.
WINDOW_STEPS = st.lists(st.tuples(st.sampled_from([0, 1]), st.booleans(),
                                  st.sampled_from(["call", "tap", "settle", "cancel", "play"]),
                                  st.integers(0, 1),
                                  st.sampled_from([Rank.ACE, Rank.TWO, Rank.SEVEN])), max_size=30)


@settings(max_examples=200, deadline=None)
@given(steps=WINDOW_STEPS)
def test_two_windows_in_any_order_act_only_on_the_call_as_each_showed_it(steps):
    """Two windows on one sitting, each acting on the call as it last drew it, in any interleaving: the call stored
    is always on the play now due a call, a tap or a verdict is applied only over the call as its window showed it
    (a refused one changes nothing), and every verdict recorded is the call of the window that gave it."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        store = SqliteStore(Path(folder) / "r.sqlite3")
        first = Referee.new(store, "Friday")
        first.record(NewGame(("Alice", "Ben", "Cara")))
        windows = [first, Referee(store, first.sitting_id)]
        shown: list[OpenCall | None] = [None, None]
        for who, redraw, action, name, rank in steps:
            window = windows[who]
            if redraw:
                window.reload()
                shown[who] = window.open_call()
            before = store.open_call(window.sitting_id)
            log_before = len(store.events(window.sitting_id))
            game = window.state.game
            try:
                if action == "call":
                    callers = [p for p in game.players if game.last_play and p != game.last_play.player] or ["Alice"]
                    shown[who] = window.keep_call(OpenCall(len(window.sitting.log), callers[name % len(callers)]))
                elif action == "tap" and shown[who] is not None:
                    call = shown[who]
                    shown[who] = window.keep_call(OpenCall(call.at, call.caller, call.revealed + (rank,)),
                                                  replacing=call)
                    assert before == call, "a tap applied over cards its window did not show"
                elif action == "settle" and shown[who] is not None and game.last_play is not None:
                    claim = game.last_play
                    window.settle(shown[who], (claim.rank,) * claim.count)
                    assert before == shown[who], "a verdict given on a call its window did not show"
                    assert store.events(window.sitting_id)[-1].caller == shown[who].caller
                elif action == "cancel" and shown[who] is not None:
                    window.drop_call(shown[who])
                    assert before == shown[who], "a call cancelled that its window did not show"
                elif action == "play" and game is not None and game.turn is not None:
                    window.record(Play(game.turn, 1, game.ranks_allowed[0]))
            except (StaleSitting, IllegalAction) as refused:
                assert len(store.events(window.sitting_id)) == log_before, refused
                if action in ("tap", "cancel"):
                    assert store.open_call(window.sitting_id) == before, "a refused tap changed the call"
            stored = store.open_call(window.sitting_id)
            if stored is not None:
                assert stored.at == len(store.events(window.sitting_id)), "a call left on a play no longer due"
        store.close()


@pytest.mark.parametrize("folder_writable", [True, False])
def test_a_read_only_database_opens_to_be_shown_and_refuses_a_write_in_words(tmp_path, monkeypatch, folder_writable):
    """A read-only file (or one in a read-only folder, as a backup on a stick) was refused outright: opening it tried
    to switch its journal, which writes. It opens read-only now, shows its games, and a write is refused in words.
    (The tests run as root, whom the files' modes do not stop: this process is told it may not write instead.)"""
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(Winner("Alice", players=PLAYERS))
    referee.store.close()  # the last connection: the write-ahead journal is folded in and its files removed
    before = path.read_bytes()
    not_here = {path} if folder_writable else {path, path.parent}
    real_access = os.access
    monkeypatch.setattr("assistant.storage.os.access",
                        lambda p, mode: False if mode == os.W_OK and Path(p) in not_here else real_access(p, mode))
    store = SqliteStore(path)
    assert [s.name for s in store.sittings()] == ["Friday"]
    shown = Referee(store, 1)
    assert [row.winner for row in shown.state.table.rows] == ["Alice"]
    with pytest.raises(StorageError, match="read-only"):
        shown.record(Winner("Ben"))
    with pytest.raises(StorageError, match="read-only"):
        store.rename_sitting(1, "Saturday")
    assert path.read_bytes() == before and [row.winner for row in Referee(store, 1).state.table.rows] == ["Alice"]
    if not folder_writable:
        assert not (tmp_path / "r.sqlite3-shm").exists(), "read as it lies: no index made in a read-only folder"


def test_sqlites_bare_messages_are_said_with_their_cause(tmp_path, monkeypatch):
    """"unable to open database file", "database is locked" and "disk I/O error" said nothing of why."""
    from assistant import storage

    existing = tmp_path / "r.sqlite3"
    existing.write_bytes(b"")
    unable = sqlite3.OperationalError("unable to open database file")
    monkeypatch.setattr(storage.os, "access", lambda p, mode: False)
    assert storage._in_words(unable, existing).endswith("(this user may not read the file)")
    assert storage._in_words(unable, tmp_path / "new.sqlite3").endswith(f"(the folder {tmp_path} is read-only: the "
                                                                       "database cannot be made there)")
    locked = sqlite3.OperationalError("database is locked")
    assert "another program is writing to it" in storage._in_words(locked, existing)
    monkeypatch.setattr(storage.shutil, "disk_usage", lambda p: SimpleNamespace(total=10**9, used=10**9, free=0))
    assert storage._in_words(sqlite3.OperationalError("disk I/O error"), existing).endswith("(the disk is full)")


@pytest.mark.parametrize("refusal", [None, errno.EIO, errno.EDQUOT])
def test_a_disk_io_error_from_a_used_up_quota_is_said_as_such(tmp_path, monkeypatch, refusal):
    """A user's disk quota used up makes SQLite say only "disk I/O error" (SQLITE_IOERR_WRITE: the system's EDQUOT
    stays inside SQLite), on a disk with room for others, so it was not said as a full disk, nor as anything a
    player could act on. The disk is asked with a scratch write, which leaves nothing behind: only its EDQUOT is a
    quota; a write that goes through, or fails otherwise, leaves SQLite's words as they were."""
    from assistant import storage

    existing = tmp_path / "r.sqlite3"
    existing.write_bytes(b"")
    real_fsync = os.fsync

    def fsync(fd):
        if refusal is not None:
            raise OSError(refusal, os.strerror(refusal))
        real_fsync(fd)

    monkeypatch.setattr(storage.shutil, "disk_usage", lambda p: SimpleNamespace(total=10**9, used=0, free=10**9))
    monkeypatch.setattr(storage.os, "fsync", fsync)
    said = storage._in_words(_io_error("SQLITE_IOERR_WRITE"), existing)
    assert said == ("disk I/O error (the disk quota is used up)" if refusal == errno.EDQUOT else "disk I/O error")
    assert list(tmp_path.iterdir()) == [existing], "the scratch write leaves nothing behind"
    other = sqlite3.OperationalError("no such column: seq")
    assert storage._in_words(other, existing) == "no such column: seq", "a quota is looked for only in an I/O error"


def _io_error(name: str) -> sqlite3.OperationalError:
    """SQLite's "disk I/O error" as Python raises it, with the code of what SQLite was doing (``SQLITE_IOERR_READ``)."""
    error = sqlite3.OperationalError("disk I/O error")
    error.sqlite_errorcode, error.sqlite_errorname = getattr(sqlite3, name), name
    return error


class _Failing:
    """A connection every statement of which fails with ``error``, as SQLite's did."""

    def __init__(self, error: sqlite3.Error) -> None:
        self.error = error

    def execute(self, *args):
        raise self.error


@pytest.mark.parametrize("code, a_write", [("SQLITE_IOERR_READ", False), ("SQLITE_IOERR_SHORT_READ", False),
                                           ("SQLITE_IOERR_SHMSIZE", True)])
def test_only_an_io_error_of_sqlites_writing_asks_the_disk_about_a_quota(tmp_path, monkeypatch, code, a_write):
    """After any "disk I/O error" on a disk with room, 64 KiB were written beside the database to ask about a quota,
    where `sittings` or `export` had failed to read too. A quota refuses more room, never a read (a bad sector, a
    network disk gone): a read's error is said as SQLite says it, and nothing is written. SQLite's code tells, not the
    call: a listing of a file no program has open makes its index first (SHMSIZE), a write a quota does refuse."""
    from assistant import storage

    path = tmp_path / "r.sqlite3"
    store = SqliteStore(path)
    store.create_sitting("Friday")
    store.close()
    store._db = _Failing(_io_error(code))
    asked, scratch = [], storage.tempfile.TemporaryFile

    def refused(fd):  # the quota a scratch write would find used up
        raise OSError(errno.EDQUOT, os.strerror(errno.EDQUOT))

    monkeypatch.setattr(storage.tempfile, "TemporaryFile", lambda *a, **k: asked.append(k) or scratch(*a, **k))
    monkeypatch.setattr(storage.os, "fsync", refused)
    monkeypatch.setattr(storage.shutil, "disk_usage", lambda p: SimpleNamespace(total=10**9, used=0, free=10**9))
    with pytest.raises(StorageError) as raised:
        store.sittings()
    said = "disk I/O error (the disk quota is used up)" if a_write else "disk I/O error"
    assert str(raised.value) == f"cannot read the database {path}: {said}"
    assert bool(asked) == a_write, "the disk is asked, with a scratch write, only after a write's error"


def test_a_write_refused_for_another_reason_than_a_quota_asks_the_disk_once(tmp_path, monkeypatch):
    """A file opened to be read as it is, whose first read's index SQLite could not make ("disk I/O error" on a disk
    with room), asked the disk about a quota twice, 64 KiB written beside the database each time: once to know whether
    to read it around a used-up quota, and again to word the error, which was not one."""
    from assistant import storage

    path = tmp_path / "r.sqlite3"
    SqliteStore(path).close()
    asked, scratch = [], storage.tempfile.TemporaryFile

    def probe(store):
        raise _io_error("SQLITE_IOERR_SHMSIZE")

    monkeypatch.setattr(SqliteStore, "_probe", probe)
    monkeypatch.setattr(storage.tempfile, "TemporaryFile", lambda *a, **k: asked.append(k) or scratch(*a, **k))
    monkeypatch.setattr(storage.shutil, "disk_usage", lambda p: SimpleNamespace(total=10**9, used=0, free=10**9))
    with pytest.raises(StorageError, match=r"^cannot open the database .*: disk I/O error$"):
        SqliteStore(path, as_it_is=True)
    assert len(asked) == 1, "one scratch write for one failure"


def test_a_database_read_as_it_lies_sees_what_another_referee_writes_later(tmp_path, monkeypatch):
    """Opened read-only in a read-only folder (read as it lies, without SQLite's index), the store went on showing the
    file as it was at opening: a table watching another's database never saw its games."""
    path = tmp_path / "r.sqlite3"
    writer = Referee.new(SqliteStore(path), "Friday")
    writer.record(Winner("Alice", players=PLAYERS))
    writer.store.close()
    blocked = {path, path.parent}
    real_access = os.access
    monkeypatch.setattr("assistant.storage.os.access",
                        lambda p, mode: False if mode == os.W_OK and Path(p) in blocked else real_access(p, mode))
    shown = SqliteStore(path)
    assert shown.read_only and len(Referee(shown, 1).state.table.rows) == 1
    blocked.clear()  # another referee, who may write, adds a game
    writer = Referee(SqliteStore(path), 1)
    writer.record(Winner("Ben"))
    writer.store.close()
    assert [row.winner for row in Referee(shown, 1).state.table.rows] == ["Alice", "Ben"]


def test_a_database_reached_through_a_link_is_judged_by_the_folder_it_lies_in(tmp_path, monkeypatch):
    """A link in a read-only folder to a file in a writable one opened read-only, and refused every write."""
    (tmp_path / "real").mkdir()
    (tmp_path / "links").mkdir()
    path = tmp_path / "real" / "r.sqlite3"
    Referee.new(SqliteStore(path), "Friday").store.close()
    link = tmp_path / "links" / "r.sqlite3"
    link.symlink_to(path)
    real_access = os.access
    monkeypatch.setattr("assistant.storage.os.access", lambda p, mode: False if mode == os.W_OK and
                        Path(p) == tmp_path / "links" else real_access(p, mode))
    store = SqliteStore(link)
    assert not store.read_only
    Referee(store, 1).record(Winner("Alice", players=PLAYERS))

#: A process that stops midway through a write in SQLite's rollback journal, as a referee killed while it made a new
#: file's tables: the change is on disk, and the file's ``-journal`` holds what undoes it.
_KILLED_MIDWAY = """
import os, signal, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=DELETE")
db.execute("PRAGMA cache_size=1")  # the change spills into the file before the commit
db.execute("BEGIN")
db.executemany("INSERT INTO events VALUES (1, ?, '{}', '')", [(n,) for n in range(100, 2100)])
os.kill(os.getpid(), signal.SIGKILL)
"""


def _killed_midway(path: Path) -> None:
    subprocess.run([sys.executable, "-c", _KILLED_MIDWAY, str(path)])
    assert (path.parent / (path.name + "-journal")).stat().st_size > 0, "the interrupted write's journal is left"


def test_a_write_stopped_midway_is_rolled_back_and_the_file_opens(tmp_path):
    """A referee killed while it made a new file's tables left a ``-journal`` that the read-only look at the file,
    taken first, could not roll back: "attempt to write a readonly database", at every start after (4 starts in 120
    killed at random, in an audit). The half-made write is undone, and what was stored before it is all there."""
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(Winner("Alice", players=PLAYERS))
    referee.store.close()
    _killed_midway(path)
    store = SqliteStore(path)
    assert [s.name for s in store.sittings()] == ["Friday"]
    assert [row.winner for row in Referee(store, 1).state.table.rows] == ["Alice"]
    assert store._db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert not (tmp_path / "r.sqlite3-journal").exists()


def test_a_write_stopped_midway_in_a_file_this_user_may_not_write_is_said_in_words(tmp_path, monkeypatch):
    """Only a connection that may write can undo the half-made write: a read-only file says where it is, and how it is
    undone, instead of SQLite's bare "attempt to write a readonly database"."""
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.store.close()
    _killed_midway(path)
    real_access = os.access
    monkeypatch.setattr("assistant.storage.os.access",
                        lambda p, mode: False if mode == os.W_OK and Path(p) == path else real_access(p, mode))
    with pytest.raises(StorageError, match=r"a write that stopped midway.*r\.sqlite3-journal.*open it as that user"):
        SqliteStore(path)
    assert (tmp_path / "r.sqlite3-journal").exists(), "left for a user who may write the file"


def _calls_and_state(referee: Referee):
    return referee.state, referee.sitting.calls, referee.sitting.log, referee.sitting.last_counted_at


def test_a_page_reads_on_from_the_sitting_it_drew_and_gets_what_a_whole_read_gets(tmp_path):
    """A page's run reads only the events stored after the sitting as it last drew it (a whole read and replay at
    each run made a long evening's taps slow): what another window recorded meanwhile, an undo among it, gives the
    state, calls and undo a whole read gives, and the sitting the page drew is left as it was."""
    path = tmp_path / "r.sqlite3"
    other = Referee.new(SqliteStore(path), "Friday")
    other.record(NewGame(PLAYERS))
    other.record(Play("Alice", 2))
    shown = Referee(SqliteStore(path), other.sitting_id)
    drawn = (shown.state, list(shown.sitting.log))
    other.record(Play("Ben", 1))
    other.record(Undo())
    other.record(Play("Ben", 2))
    other.record(call("Cara", "2", "2"))
    read_on = Referee.read(SqliteStore(path), other.sitting_id, shown)
    assert _calls_and_state(read_on) == _calls_and_state(Referee(SqliteStore(path), other.sitting_id))
    assert (shown.state, shown.sitting.log) == drawn, "the drawn sitting is left as it was"
    read_on.record(Undo())  # undo reaches back past what was read on
    read_on.record(Undo())
    assert read_on.state == Referee(SqliteStore(path), other.sitting_id).state == drawn[0]


def test_a_stored_sitting_that_does_not_go_on_from_the_drawn_one_is_read_whole(tmp_path):
    """A database put back from a copy under the page (fewer events, or others in their place) is not read on from
    what the page drew: the sitting is read whole, as stored."""
    path, copy = tmp_path / "r.sqlite3", tmp_path / "copy.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(NewGame(PLAYERS))
    referee.record(Play("Alice", 1))
    SqliteStore(path).close()
    copy.write_bytes(path.read_bytes())
    referee.record(Play("Ben", 1))
    shorter = Referee.read(SqliteStore(copy), referee.sitting_id, referee)
    assert shorter.sitting.log == [NewGame(PLAYERS), Play("Alice", 1)]
    other = Referee(SqliteStore(copy), referee.sitting_id)
    other.record(Play("Ben", 2))  # as many events as the page drew, the last one not its own
    other.record(Play("Cara", 1))
    diverged = Referee.read(SqliteStore(copy), referee.sitting_id, referee)
    assert diverged.sitting.log[2:] == [Play("Ben", 2), Play("Cara", 1)]
    assert diverged.state == Referee(SqliteStore(copy), referee.sitting_id).state


def test_an_event_the_rules_refuse_after_the_drawn_sitting_is_named_by_its_number(tmp_path):
    path = tmp_path / "r.sqlite3"
    referee = Referee.new(SqliteStore(path), "Friday")
    referee.record(NewGame(PLAYERS))
    shown = Referee(SqliteStore(path), referee.sitting_id)
    referee.record(Play("Alice", 1))
    db = sqlite3.connect(path)
    db.execute("""UPDATE events SET body = '{"event": "play", "player": "Cara", "count": 1}' WHERE seq = 1""")
    db.commit()
    with pytest.raises(StorageError, match="event 1 of sitting 1 cannot be replayed: it is Alice's turn, not Cara's"):
        Referee.read(SqliteStore(path), referee.sitting_id, shown)


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy, choices=st.lists(st.integers(0, 2**16), min_size=4, max_size=300),
       cut=st.floats(0, 1))
def test_reading_on_from_any_point_of_any_legal_sitting_gives_what_a_whole_read_gives(tmp_path_factory, rules, choices,
                                                                                      cut):
    """In any legal sitting (undos among its events), a page that drew it at any point and reads on from there gets
    the state, the calls and the undo a whole read gets."""
    played = Sitting()
    play_random(played, PLAYERS, rules, choices, lambda _: None)
    path = tmp_path_factory.mktemp("read_on") / "r.sqlite3"
    stored = Referee.new(SqliteStore(path), "Friday")
    drawn_at = int(cut * len(played.log))
    shown = None
    for i, event in enumerate(played.log):
        if i == drawn_at:
            shown = Referee(SqliteStore(path), stored.sitting_id)
        stored.record(event)
    shown = shown or Referee(SqliteStore(path), stored.sitting_id)
    read_on = Referee.read(SqliteStore(path), stored.sitting_id, shown)
    whole = Referee(SqliteStore(path), stored.sitting_id)
    assert _calls_and_state(read_on) == _calls_and_state(whole)
    while whole.sitting.can_undo:  # each undo, back to the first event, as a whole read's (in memory: one database)
        assert read_on.sitting.can_undo
        assert read_on.sitting.apply(Undo()) == whole.sitting.apply(Undo())
    assert not read_on.sitting.can_undo


def _put_back(backup: Path, path: Path) -> None:
    """A backup copied over the database while a page has it open (its journal files gone with the old file)."""
    for extra in ("-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)
    path.write_bytes(backup.read_bytes())


def test_a_backup_put_back_under_a_page_is_read_whole_though_its_next_event_is_the_pages_last(tmp_path):
    """The page drew a deal and two plays; a backup taken after the deal was put back, and another window played on
    from it to the same play at the same place, then on. Read on from one like event, the page went on from a game
    that is not in the file (Alice with one card more); the row is another row (recorded at another moment), so the
    sitting is read whole."""
    path, backup = tmp_path / "r.sqlite3", tmp_path / "backup.sqlite3"
    page = Referee.new(SqliteStore(path), "Friday")
    page.record(NewGame(PLAYERS))
    SqliteStore(path).close()
    backup.write_bytes(path.read_bytes())
    page.record(Play("Alice", 1))
    page.record(Play("Ben", 1))
    _put_back(backup, path)
    other = Referee(SqliteStore(path), page.sitting_id)
    for event in (Play("Alice", 2), Play("Ben", 1), Play("Cara", 1)):
        other.record(event)
    read = Referee.read(SqliteStore(path), page.sitting_id, page)
    assert read.state == other.state and read.state.game.hands["Alice"] == 11


def test_a_backup_put_back_whose_next_event_the_pages_game_refuses_is_read_whole_not_called_damaged(tmp_path):
    """The same with a deal of five in the file: read on from the page's deal of four, Eve's play was refused, the
    page said the sitting could not be read and read it again without end. It is read whole; and where a row carries
    the very mark of the page's (a copy made by hand), a refusal after it reads the sitting whole too."""
    path, backup = tmp_path / "r.sqlite3", tmp_path / "backup.sqlite3"
    page = Referee.new(SqliteStore(path), "Friday")
    SqliteStore(path).close()
    backup.write_bytes(path.read_bytes())
    for event in (NewGame(PLAYERS), Play("Alice", 1), Play("Ben", 1)):
        page.record(event)
    _put_back(backup, path)
    other = Referee(SqliteStore(path), page.sitting_id)
    for event in (NewGame(PLAYERS + ("Eve",)), Play("Alice", 1), Play("Ben", 1), Play("Cara", 1), Play("Dev", 1),
                  Play("Eve", 1)):
        other.record(event)
    assert Referee.read(SqliteStore(path), page.sitting_id, page).state == other.state
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE events SET recorded = ? WHERE sitting_id = ? AND seq = 2", (page.recorded, page.sitting_id))
    assert SqliteStore(path).recorded(page.sitting_id, 2) == page.recorded
    assert Referee.read(SqliteStore(path), page.sitting_id, page).state == other.state


def test_reading_on_gives_the_events_after_a_marked_row_and_the_mark_of_the_last_else_nothing(tmp_path):
    """A page reads on from its last event only while the file still holds that very row: then it gets the events
    stored after it and the mark it goes on from next (its own where none came); a row with another mark, or none,
    gives nothing to read on from, and the page reads the sitting whole."""
    store = SqliteStore(tmp_path / "r.sqlite3")
    page = Referee.new(store, "Friday")
    page.record(NewGame(PLAYERS))
    mark = page.recorded
    assert store.read_on(page.sitting_id, 0, mark) == ([], mark)
    page.record(Play("Alice", 1))
    page.record(Play("Ben", 2))
    assert store.read_on(page.sitting_id, 0, mark) == ([Play("Alice", 1), Play("Ben", 2)], page.recorded)
    assert page.recorded == store.recorded(page.sitting_id, 2) != mark
    assert store.read_on(page.sitting_id, 1, mark) is None  # event 1 is another row
    assert store.read_on(page.sitting_id, 3, page.recorded) is None  # there is no event 3
    assert store.read_on(page.sitting_id + 1, 0, mark) is None  # nor a second sitting


def test_a_sitting_copied_to_read_on_from_holds_every_part_of_the_original_apart():
    """A page reads on from a copy of the sitting it drew: every part of it copied (one added later and left out
    would be shared, or missing), and what the copy goes on with leaves the original as it was."""
    original = Sitting([NewGame(PLAYERS), Play("Alice", 1)])
    copy = original.copy()
    assert vars(copy).keys() == vars(original).keys()
    copy.apply(call("Ben", "A"))
    assert original.log == [NewGame(PLAYERS), Play("Alice", 1)] and original.calls == {}
    assert copy.calls != {} and original.state.game.awaiting_call
