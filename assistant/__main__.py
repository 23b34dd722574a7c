"""Command line of the rules core.

    python -m assistant replay [--json] FILE        the state after a transcript (TRANSCRIPT.md; - reads stdin)
    python -m assistant sittings                    the sittings in the database
    python -m assistant export SITTING [--csv]      a sitting as a transcript, or its match table as CSV
    python -m assistant import FILE --name NAME     a transcript as a new sitting (- reads stdin)
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import sqlite3
import stat
import sys
from contextlib import closing
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator

from . import command_line
from .calls import CallRecord
from .cards import card_count, last_cards
from .errors import StorageError
from .events import Event
from .game import standing_counts, who
from .players import unseatable
from .referee import Referee
from .rules import TableKind
from .sitting import Sitting, TranscriptError, read_transcript, rebuild, replay, state_to_json
from .storage import SittingInfo, SqliteStore, default_db_path, sitting_name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assistant", description="Cheat Referee's rules core")
    commands = parser.add_subparsers(dest="command", required=True)
    replay_cmd = commands.add_parser("replay", help="replay a sitting's transcript and print its state")
    replay_cmd.add_argument("--json", action="store_true", help="print the state as JSON")
    replay_cmd.add_argument("file", help="a transcript in JSON Lines (- for the standard input)")
    commands.add_parser("sittings", help="list the sittings in the database")
    export_cmd = commands.add_parser("export", help="print a sitting's transcript (or its match table with --csv)")
    export_cmd.add_argument("sitting", type=_sitting_number, help="the sitting's number, from `sittings`")
    export_cmd.add_argument("--csv", action="store_true", help="the match table as CSV instead")
    import_cmd = commands.add_parser("import", help="store a transcript as a new sitting")
    import_cmd.add_argument("file", help="a transcript in JSON Lines (- for the standard input)")
    import_cmd.add_argument("--name", required=True, help="the new sitting's name")
    for command in (export_cmd, import_cmd, commands.choices["sittings"]):
        command.add_argument("--db", help="the database file (default: $CHEAT_REFEREE_DB or the data folder)")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return _replay(args)
    if args.command == "import":
        return _import(args)
    try:
        store = SqliteStore(_existing(args.db), as_it_is=True)  # listed or exported, a file stays as it was
        if args.command == "sittings":
            sittings = store.sittings()
            out = "".join(f"{info.id}\t{who(info.name)}\t{info.created}\t{_events(info.events)}\n" for info in sittings)
        else:
            referee = Referee(store, args.sitting)
            out = referee.table_csv() if args.csv else referee.transcript()
    except StorageError as error:
        print(command_line.shown(str(error)), file=sys.stderr)
        return 2
    if args.command == "sittings" and not out:
        print(f"No sittings yet in {store.path}.", file=sys.stderr)
    if args.command == "export" and args.csv and _into_a_file(sys.stdout):
        out = "\ufeff" + out  # the byte order mark Excel needs to read "Zoë", as the app's download has
    command_line.write(out)
    return 0


def _sitting_number(text: str) -> int:
    """A sitting's number as `sittings` lists it: digits only (Python's int() reads "1_0" as 10, and "１" as 1)."""
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a sitting's number (the first column of `sittings`)")
    return int(text)


def _import(args: argparse.Namespace) -> int:
    """The transcript read and replayed (its players' names held to the app's rules, :func:`_seated`), and the name
    checked, before the database is opened: a file that cannot be imported leaves no database behind (a mistyped --db
    made one, empty, and its folders). A database this import made, and then could not store the sitting in (a full
    disk), is taken away again, with the folders made for it. A Ctrl-C that comes once the sitting is stored is too
    late to stop it: the import says what it stored."""
    store, opening, made, made_file = None, False, None, None
    try:
        path = _db_path(args.db)
        made = _first_missing(path)
        name = sitting_name(args.name)
        sitting = _read(args.file, _seated)
        opening = True
        store = SqliteStore(path)
        made_file = store.identity if store.created else None
        sitting_id = Referee.import_sitting(store, name, sitting).sitting_id
    except BaseException as error:  # Ctrl-C too: an import stopped leaves no database behind either
        stored = _stored_all_the_same(store, error)
        if stored is None:
            if store is not None:
                store.close()
            if opening and made is not None and (store is None or made_file is not None):
                _take_back(path, made, made_file)
            if not isinstance(error, (_Unreadable, StorageError, TranscriptError)):
                raise
            print(command_line.shown(str(error)), file=sys.stderr)
            return 2
        sitting_id = stored.id
        print("interrupted after the sitting was stored: it is kept", file=sys.stderr)
    said = f"imported {_events(len(sitting.log))} as sitting {sitting_id} ({who(name)})"
    try:
        print(said, flush=True)
    except OSError as error:  # the sitting is stored: a failure said here would have it imported twice
        command_line.quiet_stdout()
        print(f"{said}; this line could not be written to the output ({error.strerror})", file=sys.stderr)
    return 0


def _stored_all_the_same(store: SqliteStore | None, error: BaseException) -> SittingInfo | None:
    """The sitting a Ctrl-C came too late to stop: one that came once the import's commit was made (as it returned,
    while the journal was emptied, before the answer was printed) said "interrupted" of a sitting that was stored,
    and an import run again on that word stored it twice. None for any other failure, or a sitting not stored."""
    if not isinstance(error, KeyboardInterrupt) or store is None:
        return None
    try:
        return store.sitting_made()
    except StorageError:  # the file cannot be read to tell: said as interrupted, as before
        return None


def _first_missing(path: Path) -> Path | None:
    """The outermost of ``path`` and its folders that is not there yet (None where the file is)."""
    missing = None
    try:
        for candidate in (path, *path.parents):
            if candidate.exists() or candidate.is_symlink():
                break
            missing = candidate
    except OSError:  # a folder on the way this user may not enter: the database's opening says so
        return None
    return missing


def _take_back(path: Path, made: Path, made_file: tuple[int, int] | None) -> None:
    """The database this import made, and the folders made for it (``made``, the outermost), removed; never a file
    that may hold a game. ``made_file`` is the file as this import's opening made it; where the opening failed (None),
    only an empty file is taken. A file replaced since, or holding a sitting (another referee may have started on
    the new file meantime), or that cannot be read to tell, stays; and only folders left empty go."""
    try:
        stat = path.stat()
    except OSError:  # nothing there, or not reachable: only folders to take back
        stat = None
    if stat is not None:
        if made_file is None and stat.st_size > 0:
            return
        if made_file is not None and (stat.st_dev, stat.st_ino) != made_file:
            return
        if stat.st_size > 0 and _may_hold_a_sitting(path):
            return
        for leftover in (path, *(path.with_name(path.name + end) for end in ("-journal", "-wal", "-shm"))):
            try:
                leftover.unlink(missing_ok=True)
            except OSError:
                pass
    for folder in path.parents:
        if folder == made.parent or not folder.is_relative_to(made):
            break
        try:
            folder.rmdir()
        except OSError:
            break


def _may_hold_a_sitting(path: Path) -> bool:
    """False only where the file is read and holds no sitting, or no table of sittings yet."""
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            return db.execute("SELECT count(*) FROM sittings").fetchone()[0] > 0
    except sqlite3.Error as error:
        return "no such table" not in str(error)  # locked, damaged, another program's: kept


def _events(n: int) -> str:
    return f"{n} event{'' if n == 1 else 's'}"


class _Unreadable(Exception):
    """A transcript that cannot be read at all (not there, a folder, no permission), said with its name."""


def _read(path: str, replayed: Callable[[Iterable[bytes]], Sitting] = replay) -> Sitting:
    """The sitting a transcript file (- for the standard input) leads to, by ``replayed``; raises _Unreadable or
    TranscriptError."""
    if not path:
        raise _Unreadable("no transcript named: the path given is empty")
    try:
        if path == "-":
            if sys.stdin is None:
                raise _Unreadable("cannot read -: the standard input is closed")
            return replayed(_lines(sys.stdin.buffer))
        with open(path, "rb") as handle:
            return replayed(_lines(handle))
    except BrokenPipeError:
        raise
    except OSError as error:
        raise _Unreadable(f"cannot read {path}: {error.strerror}") from None


def _seated(lines: Iterable[bytes]) -> Sitting:
    """A transcript replayed for an import: as ``replay`` does, and refused (TranscriptError) at a line naming a player
    the app's setup could not have seated (:func:`~assistant.players.unseatable`). An imported sitting is played on in
    the app, which showed names too long for the table screen, or two players who looked the same. ``replay`` takes
    any names TRANSCRIPT.md allows."""
    return rebuild(_checked(read_transcript(lines)), TranscriptError)


def _checked(numbered: Iterable[tuple[int, Event]]) -> Iterator[tuple[int, Event]]:
    """The transcript's numbered events as they come, refused at the first that names a player the setup could not
    seat: before that line is applied, so the error names it as the rules' own errors name theirs."""
    for number, event in numbered:
        if fault := unseatable(event):
            raise TranscriptError(number, fault)
        yield number, event


#: The longest transcript line read, far beyond any event's (a deal of twenty players with long names takes under 2 KB):
#: a file without line breaks (/dev/zero, a film named by mistake) was read whole into memory as its first line.
MAX_LINE = 16 << 20


def _lines(handle: BinaryIO) -> Iterator[bytes]:
    """The lines of a transcript file, none read beyond MAX_LINE bytes (TranscriptError names the line)."""
    for number in itertools.count(1):
        line = handle.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE:
            raise TranscriptError(number, f"longer than {MAX_LINE >> 20} MB, so not a line of a transcript")
        yield line


def _into_a_file(stream) -> bool:
    """Whether ``stream`` writes into a file on disk (``> friday.csv``), not into a pipe or a terminal, where a byte
    order mark would be one more character for the program or the eye that reads it; and into an empty one: added to
    a file (``>> friday.csv``) it came in the middle, where a spreadsheet shows it in a row of its own."""
    try:
        found = os.fstat(stream.fileno())
        return stat.S_ISREG(found.st_mode) and found.st_size == 0
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


def _db_path(db: str | None) -> Path:
    """The database ``--db`` names, or the default where it is not given: an empty --db (``--db "$DB"`` with DB
    unset) is refused, not taken for the default, into which a script would have imported for good."""
    if db is None:
        return default_db_path()
    if not db:
        raise StorageError("no database named: the path given to --db is empty")
    return Path(db).expanduser()


def _existing(db: str | None) -> Path:
    """The database a command that only reads names: where there is none, none is made (a mistyped --db would
    leave an empty database behind, and list nothing, as if the evening had been lost)."""
    path = _db_path(db)
    try:
        missing = not path.exists() or (path.is_file() and path.stat().st_size == 0)  # SQLite would make it one
    except OSError as error:  # a folder on the way this user may not enter
        raise StorageError(f"cannot open the database {path}: {(error.strerror or str(error)).lower()}") from None
    if missing:
        raise StorageError(f"there is no database at {path}{': the file is empty' if path.exists() else ''}: the "
                           "referee makes its database when it first runs; give --db the file it uses")
    return path


def _replay(args: argparse.Namespace) -> int:
    try:
        sitting = _read(args.file)
    except (_Unreadable, TranscriptError) as error:
        print(command_line.shown(str(error)), file=sys.stderr)
        return 2
    state = state_to_json(sitting.state)
    if args.json:
        print(json.dumps(state))
    else:
        print(_summary(state, sitting.state.table.kinds()))
        if sitting.calls:
            print(_calls_summary(sitting.calls))
    return 0


def _summary(state: dict, kinds: set[TableKind]) -> str:
    """The state in a few lines a player reads: whose move it is and what is open, the last verdict, the hands,
    the standing (``kinds``: those of the games it counts)."""
    lines = []
    game = state["game"]
    if game is None:
        lines.append("No game dealt yet.")
    else:
        last = game["last_play"]
        if game["over"]:
            lines.append(f"Game over. Places: {', '.join(map(who, game['places'])) or 'none'}")
        elif game["awaiting_call"] and last is not None:
            claim = f"{card_count(last['count'])} claimed as {last['rank']}"
            player = who(last["player"])
            if game["hands"][last["player"]] == 0:
                lines.append(f"{player} played {last_cards(last['count'])} ({claim}): Cheat!, or nobody calls, and "
                             f"{player} is out only if the play survives.")
            else:
                lines.append(f"{player}'s play ({claim}) can be called.")
            goes_on = " if the game goes on" if game["hands"][last["player"]] == 0 else ""  # it may end with the call
            lines.append(f"Then {who(game['turn'])} plays{goes_on}, claiming {' or '.join(game['ranks_allowed'])}; "
                         f"pile {card_count(game['pile'])}.")
        else:
            lines.append(f"{who(game['turn'])} to play, claiming {' or '.join(game['ranks_allowed'])}; "
                         f"pile {card_count(game['pile'])}.")
        if (called := game["last_call"]) is not None:
            said = "a lie" if called["lie"] else "honest"
            lines.append(f"Last call: {who(called['caller'])} on {who(called['challenged'])}, {said}; "
                         f"{who(called['picked_up_by'])} picked up {card_count(called['cards'])}.")
        lines.extend(f"  {who(name)}: {card_count(count)}" for name, count in game["hands"].items())
    table = state["table"]
    lines.append(f"Table ({_scoring(kinds)}), {table['games']} game{'' if table['games'] == 1 else 's'} finished:")
    lines.extend(f"  {who(name)}: {score}" for name, score in table["scores"].items())
    return "\n".join(lines)


def _scoring(kinds: set[TableKind]) -> str:
    """The table's kind and how its standing counts, in the screen's words: an evening of four match games and two
    ranked ones was summed up as "Table (ranked)", and a win of the first kind read as 3 points."""
    return f"{next(iter(kinds)).value}: {standing_counts(kinds)}" if len(kinds) == 1 else standing_counts(kinds)


def _calls_summary(records: dict[str, CallRecord]) -> str:
    """Each player's plays called and calls made, in a line each: the summary of an evening's transcript says who
    was caught and who called right, as the match table's screen does."""
    def some(n: int, thing: str) -> str:
        return f"{n} {thing}{'' if n == 1 else 's'}"

    return "\n".join(["Calls, in the games followed:", *(
        f"  {who(name)}: {r.called} of {some(r.plays, 'play')} called, {r.caught} caught lying; "
        f"{some(r.calls, 'Cheat! call')}, {r.right} right; picked up {card_count(r.picked_up)}"
        for name, r in records.items())])


def run() -> int:
    return command_line.run(main)


if __name__ == "__main__":
    sys.exit(run())
