"""`python -m assistant replay --json FILE`, as TRANSCRIPT.md writes it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from assistant import Winner
from assistant.errors import StorageError
from assistant.storage import SqliteStore

ROOT = Path(__file__).resolve().parents[2]


def run_replay(tmp_path: Path, lines: list, *flags: str) -> subprocess.CompletedProcess:
    path = tmp_path / "sitting.jsonl"
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    before = path.read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "assistant", "replay", *flags, str(path)], capture_output=True, text=True, cwd=ROOT
    )
    assert path.read_bytes() == before, "a replay never modifies the file"
    return result


def test_prints_the_state_of_the_documented_example(tmp_path):
    result = run_replay(
        tmp_path,
        [{"event": "new_game", "players": ["Alice", "Ben", "Cara", "Dev"]}, {"event": "play", "player": "Alice", "count": 2}],
        "--json",
    )
    assert result.returncode == 0 and result.stderr == ""
    assert json.loads(result.stdout) == {
        "game": {
            "players": ["Alice", "Ben", "Cara", "Dev"],
            "dealer": "Dev",
            "turn": "Ben",
            "ranks_allowed": ["2"],
            "pile": 2,
            "hands": {"Alice": 11, "Ben": 13, "Cara": 13, "Dev": 13},
            "out_of_game": 0,
            "awaiting_call": True,
            "last_play": {"player": "Alice", "count": 2, "rank": "A"},
            "last_call": None,
            "places": [],
            "over": False,
        },
        "table": {"kind": "match", "games": 0, "scores": {"Alice": 0, "Ben": 0, "Cara": 0, "Dev": 0}},
    }


def test_an_empty_transcript_has_no_game(tmp_path):
    result = run_replay(tmp_path, [], "--json")
    assert json.loads(result.stdout) == {"game": None, "table": {"kind": "match", "games": 0, "scores": {}}}


def test_a_call_is_reported_as_last_call(tmp_path):
    lines = [
        {"event": "new_game", "players": ["Sam", "Leo", "Maya"], "dealer": "Maya"},
        {"event": "play", "player": "Sam", "count": 2},
        {"event": "call", "caller": "Maya", "revealed": ["A", "9"], "note": "extra fields are ignored"},
    ]
    state = json.loads(run_replay(tmp_path, lines, "--json").stdout)
    assert state["game"]["last_call"] == {"caller": "Maya", "challenged": "Sam", "lie": True, "picked_up_by": "Sam", "cards": 2}
    assert state["game"]["turn"] == "Leo" and state["game"]["ranks_allowed"] == ["2"]


@pytest.mark.parametrize(
    "line, reason",
    [
        ("{not json", "line 3: not valid JSON at column 2: a field's name in double quotes was expected"),
        ('{"event": "play", "player": "Ben", "count": 1,}',  # a comma too many, which JSON does not allow
         "line 3: not valid JSON at column 47: a field's name in double quotes was expected"),
        ('{"event": "play" "player": "Ben", "count": 1}', "line 3: not valid JSON at column 18: a comma was expected"),
        ('{"event": "pass", "player": "Ben"} {"event": "pass", "player": "Cara"}',
         "line 3: not valid JSON at column 36: more follows the event, which ends before it (one event a line)"),
        ({"event": "shuffle"}, "line 3: unknown event \"shuffle\""),
        ({"event": ["play"]}, "line 3: unknown event [\"play\"]"),
        ({"event": True}, "line 3: unknown event true"),  # the file's spelling, not Python's True
        ({"event": "winner", "player": "Ben", "table": "cup"},
         "line 3: field 'table' must be \"match\" or \"ranked\", not \"cup\""),
        ({"event": "play", "player": "Ben", "count": 1, "rank": True}, "line 3: field 'rank': true is not a rank"),
        ({"event": {"kind": "play"}}, "line 3: unknown event {\"kind\": \"play\"}"),
        ({"event": "play", "count": 1}, "line 3: missing field 'player'"),
        ({"event": "play", "player": "Cara", "count": 1}, "line 3: it is Ben's turn, not Cara's"),
        ({"event": "play", "player": "Ben", "count": "two"}, "line 3: field 'count' must be a whole number"),
        ({"event": "call", "caller": "Alice", "revealed": ["A"]}, "line 3: Alice cannot call their own play"),
        ({"event": "call", "caller": "Ben", "revealed": ["Z"]}, "line 3: field 'revealed': \"Z\" is not a rank"),
        ({"event": "new_game", "players": ["A", "B"], "rules": {"speed": 2}}, "line 3: unknown rule 'speed'"),
        ({"event": "new_game", "players": ["A", "B"], "rules": {"decks": 3}}, "line 3: rule decks must be one of 1, 2, not 3"),
        ({"event": "new_game", "players": ["A", "B"], "rules": {"max_cards": 3}}, "line 3: rule max_cards must be 4 or more, 1"),
        ('{"event": "play", "player": "Ben", "count": ' + "9" * 5000 + "}",
         "line 3: a number of 5,000 digits, too long for any field of an event"),
        ('{"event": "play", "player": "Ben", "count": 1, "note": NaN}', "line 3: not valid JSON (NaN is not a JSON number)"),
        ('{"event": "play", "player": "Ben", "count": -Infinity}',
         "line 3: not valid JSON (-Infinity is not a JSON number)"),
        ('{"event": "play", "player": "Ben", "count": 1e999}',  # valid JSON, which Python reads as inf
         "line 3: the number 1e999 is too large for any field of an event"),
        ({"event": "new_game", "players": ["A", "B"], "rules": {"jokers": 1}},
         "line 3: rule jokers must be one of false, true, not 1"),  # JSON's words, not Python's True and None
        ({"event": "new_game", "players": ["A", "B"], "rules": {"table": None}},
         'line 3: rule table must be one of "match", "ranked", not null'),
        ("[" * 100_000 + "]" * 100_000, "line 3: not valid JSON (nested too deeply)"),
        # a field given twice: read as its last (an undo), where the line may mean either
        ('{"event": "play", "player": "Ben", "count": 1, "event": "undo"}', 'line 3: the field "event" is given twice'),
        ('{"event": "new_game", "players": ["A", "B"], "rules": {"jokers": true, "jokers": false}}',
         'line 3: the field "jokers" is given twice'),
        # two files joined, each with its byte order mark; a NUL; a zero-width space in a word JSON knows: the line
        # looked right, and "Expecting value" said why
        ('\ufeff{"event": "play", "player": "Ben", "count": 1}',
         "line 3: not valid JSON at column 1: a value was expected; the line holds the unseen character U+FEFF at "
         "column 1"),
        ('{"event": "play", "player": "Ben",\x00 "count": 1}',
         "line 3: not valid JSON at column 35: a field's name in double quotes was expected; the line holds the "
         "unseen character U+0000 at column 35"),
        ('{"event": "pass", "player": "Ben", "note": tr\u200bue}',
         "line 3: not valid JSON at column 44: a value was expected; the line holds the unseen character U+200B at "
         "column 46"),
        # a string left open before the line's end: JSON stops at the line break, which is not the fault
        ('{"event": "play", "player": "Ben", "count": 1, "rank": "A',
         "line 3: not valid JSON at column 58: a text in double quotes is not closed before the line's end"),
        ('{"event": "play", "player": "Ben", "count": 1, "rank": "A\r',
         "line 3: not valid JSON at column 58: a text in double quotes is not closed before the line's end"),
    ],
)
def test_the_first_illegal_line_is_named_on_stderr_with_exit_2(tmp_path, line, reason):
    lines = [
        {"event": "new_game", "players": ["Alice", "Ben", "Cara", "Dev"]},
        {"event": "play", "player": "Alice", "count": 1},
        line,
        {"event": "play", "player": "Nobody", "count": 1},
    ]
    result = run_replay(tmp_path, lines, "--json")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(reason), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_line_that_is_not_utf8_is_named_after_the_lines_before_it_are_checked(tmp_path):
    path = tmp_path / "latin1.jsonl"
    lines = [{"event": "new_game", "players": ["Alice", "Ben"]}, {"event": "play", "player": "Alice", "count": 1}]
    body = "".join(json.dumps(line) + "\n" for line in lines).encode()
    path.write_bytes(body + '{"event": "play", "player": "Zoë", "count": 1}\n'.encode("latin-1"))
    replayed = subprocess.run([sys.executable, "-m", "assistant", "replay", "--json", str(path)], capture_output=True,
                              text=True, cwd=ROOT)
    assert replayed.returncode == 2 and replayed.stdout == ""
    assert replayed.stderr.strip() == "line 3: not UTF-8 text (the byte 0xeb at column 32)"
    path.write_bytes(body + b'{"event": "pass", "player": "Ben"}\n\xff\n')
    replayed = subprocess.run([sys.executable, "-m", "assistant", "replay", str(path)], capture_output=True, text=True,
                              cwd=ROOT)
    assert replayed.stderr.strip() == "line 3: passing is off in this game", "the earlier illegal line is named first"


def test_a_byte_order_mark_on_the_first_line_is_read_past(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"event": "new_game", "players": ["Alice", "Ben"]}).encode() + b"\n")
    replayed = subprocess.run([sys.executable, "-m", "assistant", "replay", "--json", str(path)], capture_output=True,
                              text=True, cwd=ROOT)
    assert replayed.returncode == 0 and json.loads(replayed.stdout)["game"]["turn"] == "Alice"


def test_a_missing_file_is_named(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "assistant", "replay", "--json", str(tmp_path / "nope.jsonl")],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 2 and "nope.jsonl" in result.stderr and result.stdout == ""


def test_an_empty_path_is_said_as_such():
    """"cannot read : No such file or directory" read as a message cut short."""
    result = subprocess.run([sys.executable, "-m", "assistant", "replay", "--json", ""], capture_output=True, text=True,
                            cwd=ROOT)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == "no transcript named: the path given is empty"


def test_without_json_a_readable_summary(tmp_path):
    result = run_replay(tmp_path, [{"event": "new_game", "players": ["Alice", "Ben"]}])
    assert result.returncode == 0
    assert "Alice to play, claiming A; pile 0 cards." in result.stdout and "Ben: 26 cards" in result.stdout


def test_the_summary_says_a_play_can_be_called_a_last_play_decides_the_game_and_the_last_verdict(tmp_path):
    """It said "B to play" while A's last cards waited for a call, which B could not answer with a play."""
    last = run_replay(tmp_path, [{"event": "new_game", "players": ["A", "B"], "rules": {"max_cards": None}},
                                 {"event": "play", "player": "A", "count": 26}])
    assert last.stdout.startswith("A played their last cards (26 cards claimed as A): Cheat!, or nobody calls, and "
                                  "A is out only if the play survives.\nThen B plays if the game goes on, claiming 2; pile 26 cards.")
    one = run_replay(tmp_path, [{"event": "new_game", "players": ["A", "B"], "rules": {"max_cards": None}},
                                {"event": "play", "player": "A", "count": 25}, {"event": "play", "player": "B", "count": 1},
                                {"event": "play", "player": "A", "count": 1}])
    assert one.stdout.startswith("A played their last card (1 card claimed as 3): Cheat!, or nobody calls")
    called = run_replay(tmp_path, [{"event": "new_game", "players": ["Alice", "Ben", "Cara"]},
                                   {"event": "play", "player": "Alice", "count": 2},
                                   {"event": "call", "caller": "Ben", "revealed": ["A", "7"]},
                                   {"event": "play", "player": "Ben", "count": 1}])
    assert called.stdout.splitlines()[:3] == ["Ben's play (1 card claimed as 2) can be called.",
                                              "Then Cara plays, claiming 3; pile 1 card.",
                                              "Last call: Ben on Alice, a lie; Alice picked up 2 cards."]
    assert "Table (match: one point per win), 0 games finished:" in called.stdout
    assert called.stdout.splitlines()[-3:] == [
        "Calls, in the games followed:",
        "  Alice: 1 of 1 play called, 1 caught lying; 0 Cheat! calls, 0 right; picked up 2 cards",
        "  Ben: 0 of 1 play called, 0 caught lying; 1 Cheat! call, 1 right; picked up 0 cards",
    ], "who was caught and who called right, as the match table's screen says"
    assert "Calls" not in last.stdout, "before any verdict, no record of noughts"


def test_a_dash_replays_the_standard_input():
    lines = [{"event": "new_game", "players": ["Alice", "Ben"]}, {"event": "play", "player": "Alice", "count": 1}]
    result = subprocess.run([sys.executable, "-m", "assistant", "replay", "--json", "-"], capture_output=True, text=True,
                            cwd=ROOT, input="".join(json.dumps(line) + "\n" for line in lines))
    assert result.returncode == 0 and json.loads(result.stdout)["game"]["pile"] == 1, result.stderr


def test_a_reader_that_has_gone_ends_the_output_without_a_traceback(tmp_path):
    """``... | head -1``: output into a pipe whose reader has gone ended in a traceback (replay), or in "cannot read
    None: Broken pipe" (sittings, export)."""
    db = tmp_path / "r.sqlite3"
    transcript = tmp_path / "in.jsonl"
    transcript.write_text(json.dumps({"event": "winner", "player": "Ann", "players": ["Ann", "Bo"]}) + "\n")
    assert run_cli("import", str(transcript), "--name", "Friday", "--db", str(db)).returncode == 0
    for command in (["replay", str(transcript)], ["sittings", "--db", str(db)], ["export", "1", "--db", str(db)]):
        read, write = os.pipe()
        os.close(read)  # the reader is gone before the first line is written
        try:
            quiet = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # a pipe buffered, as in a shell
            done = subprocess.run([sys.executable, "-m", "assistant", *command], stdout=write, stderr=subprocess.PIPE,
                                  text=True, cwd=ROOT, env=quiet)
        finally:
            os.close(write)
        assert done.returncode == 1 and done.stderr == "", (command, done.stderr)


def test_a_reader_that_stops_early_in_a_long_export_is_met_as_an_error(tmp_path):
    """``export 1 | head -1`` on a long evening: written in one piece, all but the first 64 KB were dropped without an
    error, and the export said it had worked (exit 0)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from replay_speed import build_sitting

    db, transcript = tmp_path / "r.sqlite3", tmp_path / "in.jsonl"
    transcript.write_text(build_sitting(10_000, seed=1))
    assert run_cli("import", str(transcript), "--name", "Friday", "--db", str(db)).returncode == 0
    export = subprocess.Popen([sys.executable, "-m", "assistant", "export", "1", "--db", str(db)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert export.stdout.read(100)
    export.stdout.close()  # the reader goes, as head does after its line
    assert export.wait(timeout=60) == 1 and export.stderr.read() == b""
    assert len(run_cli("export", "1", "--db", str(db)).stdout) > 400_000, "the export is longer than a pipe holds"


def test_a_transcript_without_line_breaks_is_refused_at_its_first_line_not_read_whole(tmp_path):
    """/dev/zero, or a film named by mistake: the first "line" was read into memory to its end, or until memory ran
    out (a MemoryError's traceback)."""
    result = subprocess.run([sys.executable, "-m", "assistant", "replay", "/dev/zero"], capture_output=True, text=True,
                            cwd=ROOT, timeout=60)
    assert result.returncode == 2 and result.stderr == "line 1: longer than 16 MB, so not a line of a transcript\n"


def test_names_are_said_in_the_summary_with_what_would_act_on_the_terminal_written_as_escapes(tmp_path):
    """A name holding a terminal's control codes (ESC [2J clears the screen), a right-to-left override, or a line
    break went to the terminal as it was: the screen was cleared, text turned round, or a line split in two."""
    names = ["Ann\u001b[2J", "Bo\u202eLIVE", "Cy\r\nX"]
    result = run_replay(tmp_path, [{"event": "new_game", "players": names}])
    assert result.returncode == 0 and "\x1b" not in result.stdout and "\u202e" not in result.stdout
    assert "\r" not in result.stdout
    assert '"Ann\\u001b[2J" to play' in result.stdout and '"Cy\\r\\nX": 17 cards' in result.stdout
    db, transcript = tmp_path / "r.sqlite3", tmp_path / "sitting.jsonl"
    refused = run_cli("import", str(transcript), "--name", "Friday", "--db", str(db))  # names the app cannot seat
    assert refused.returncode == 2 and '"Ann\\u001b[2J"' in refused.stderr and "\x1b" not in refused.stderr
    transcript.write_text(json.dumps({"event": "new_game", "players": ["Ann", "Bo"]}) + "\n")
    imported = run_cli("import", str(transcript), "--name", "Fri\u001b[31mday", "--db", str(db))
    assert imported.returncode == 0 and "\x1b" not in imported.stdout + run_cli("sittings", "--db", str(db)).stdout


def test_an_empty_database_path_is_refused_not_taken_for_the_default(tmp_path):
    """``--db "$DB"`` with DB unset imported into the user's own database, and listed and exported from it."""
    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "winner", "player": "Ann", "players": ["Ann", "Bo"]}\n')
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHEAT_REFEREE_") and k != "XDG_DATA_HOME"}
    for command in (["import", str(transcript), "--name", "Friday"], ["sittings"], ["export", "1"]):
        result = subprocess.run([sys.executable, "-m", "assistant", *command, "--db", ""], capture_output=True,
                                text=True, cwd=ROOT, env=dict(env, HOME=str(home)))
        assert result.returncode == 2 and "no database named: the path given to --db is empty" in result.stderr, result
    assert not home.exists(), "nothing was made in the default place"


@pytest.mark.parametrize("setting", ["CHEAT_REFEREE_DB", "CHEAT_REFEREE_DATA"])
def test_a_database_setting_set_but_empty_is_refused_not_taken_for_the_default(tmp_path, setting):
    """``CHEAT_REFEREE_DB="$DB"`` with DB unset imported into the user's own database, and listed and exported from
    it, as an empty --db did: refused by the setting's name, and nothing made."""
    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "winner", "player": "Ann", "players": ["Ann", "Bo"]}\n')
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHEAT_REFEREE_") and k != "XDG_DATA_HOME"}
    for command in (["import", str(transcript), "--name", "Friday"], ["sittings"], ["export", "1"]):
        result = subprocess.run([sys.executable, "-m", "assistant", *command], capture_output=True, text=True,
                                cwd=ROOT, env=dict(env, HOME=str(home), **{setting: ""}))
        assert result.returncode == 2 and f"{setting} is set but empty" in result.stderr, result
        assert "Traceback" not in result.stderr
    assert not home.exists(), "nothing was made in the default place"


def test_an_import_stopped_by_ctrl_c_leaves_no_new_database_behind(tmp_path, monkeypatch):
    """Ctrl-C while a long import was being stored left an empty database and its folders at the new --db, which
    then listed "No sittings yet" as if an evening had been lost."""
    from assistant import __main__ as cli
    from assistant.referee import Referee

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "winner", "player": "Ann", "players": ["Ann", "Ben"]}\n')
    monkeypatch.setattr(Referee, "import_sitting", stopped)
    with pytest.raises(KeyboardInterrupt):  # said as "interrupted", exit 130, by command_line.run
        cli.main(["import", str(transcript), "--name", "Saturday", "--db", str(tmp_path / "new" / "a" / "r.sqlite3")])
    assert not (tmp_path / "new").exists()


def _stop_after_the_commit(monkeypatch, where: str) -> None:
    """Ctrl-C where ``where`` says, once the import's commit has returned."""
    from assistant import storage

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    if where == "as the journal is emptied":
        monkeypatch.setattr(storage._Transaction, "_empty_the_journal", stopped)
    else:  # as the import reads back when its last event was recorded
        monkeypatch.setattr(storage.SqliteStore, "recorded", stopped)


@pytest.mark.parametrize("where", ["as the journal is emptied", "once the sitting is made"])
def test_an_import_interrupted_once_it_is_stored_says_what_it_stored(tmp_path, monkeypatch, capsys, where):
    """A Ctrl-C in the moment after the import's commit said "interrupted" (exit 130) of a sitting that was stored:
    imported again on that word, it was there twice. It says the sitting is stored, and which, as an import does."""
    from assistant import __main__ as cli

    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "winner", "player": "Ann", "players": ["Ann", "Ben"]}\n')
    db = tmp_path / "r.sqlite3"
    SqliteStore(db).close()  # made before: its opening writes nothing, so only the import is stopped
    _stop_after_the_commit(monkeypatch, where)
    try:
        status = cli.main(["import", str(transcript), "--name", "Saturday", "--db", str(db)])
    except KeyboardInterrupt:  # a test run stops at one that escapes: failed here instead
        pytest.fail('said "interrupted" (exit 130) of a stored sitting')
    assert status == 0
    said = capsys.readouterr()
    assert said.out == "imported 1 event as sitting 1 (Saturday)\n"
    assert said.err == "interrupted after the sitting was stored: it is kept\n"
    monkeypatch.undo()
    assert [(s.id, s.name, s.events) for s in SqliteStore(db).sittings()] == [(1, "Saturday", 1)]


@pytest.mark.parametrize("where", ["in the write", "as the commit begins"])
def test_an_import_interrupted_before_its_commit_is_still_said_as_interrupted(tmp_path, monkeypatch, where):
    """The other side of the test above: a Ctrl-C before the commit stores nothing, and is said as an interruption
    (the write left open on the connection is not taken for a stored sitting)."""
    from assistant import __main__ as cli
    from assistant import storage

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    def exit_stopped(transaction, kind, error, trace):
        if kind is None:  # the commit's turn: stopped before it is made, the write left open
            raise KeyboardInterrupt
        return committing(transaction, kind, error, trace)

    committing = storage._Transaction.__exit__
    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "winner", "player": "Ann", "players": ["Ann", "Ben"]}\n')
    db = tmp_path / "r.sqlite3"
    SqliteStore(db).close()  # made before: its opening writes nothing, so only the import is stopped
    if where == "in the write":
        monkeypatch.setattr(storage, "_write_rows", stopped)
    else:
        monkeypatch.setattr(storage._Transaction, "__exit__", exit_stopped)
    with pytest.raises(KeyboardInterrupt):  # said as "interrupted", exit 130, by command_line.run
        cli.main(["import", str(transcript), "--name", "Saturday", "--db", str(db)])
    monkeypatch.undo()
    assert SqliteStore(db).sittings() == []


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True, cwd=ROOT)


def test_import_export_and_list_sittings_from_the_command_line(tmp_path):
    db = str(tmp_path / "r.sqlite3")
    transcript = tmp_path / "in.jsonl"
    lines = [
        {"event": "new_game", "players": ["Alice", "Ben"]},
        {"event": "winner", "player": "Ben"},
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    imported = run_cli("import", str(transcript), "--name", "Friday", "--db", db)
    assert imported.returncode == 0 and "as sitting 1 (Friday)" in imported.stdout
    listed = run_cli("sittings", "--db", db)
    assert listed.stdout.split("\t")[:2] == ["1", "Friday"]
    exported = run_cli("export", "1", "--db", db)
    assert [json.loads(line) for line in exported.stdout.splitlines()] == lines
    table = run_cli("export", "1", "--csv", "--db", db)
    assert table.stdout.splitlines()[1].startswith("1,match,yes,tap,Ben")
    assert table.stdout.startswith("game,"), "into a pipe: no byte order mark for the program that reads it"
    # written into a file, as `export 1 --csv > friday.csv`: with the byte order mark Excel needs to read "Zoë"
    with open(tmp_path / "friday.csv", "wb") as out:
        subprocess.run([sys.executable, "-m", "assistant", "export", "1", "--csv", "--db", db], stdout=out, cwd=ROOT,
                       check=True)
    assert (tmp_path / "friday.csv").read_bytes().startswith(b"\xef\xbb\xbfgame,")
    # ... and added to a file (`>> friday.csv`), without one: in the middle, a spreadsheet showed it in a row of its own
    with open(tmp_path / "friday.csv", "ab") as out:
        subprocess.run([sys.executable, "-m", "assistant", "export", "1", "--csv", "--db", db], stdout=out, cwd=ROOT,
                       check=True)
    assert (tmp_path / "friday.csv").read_bytes().count(b"\xef\xbb\xbf") == 1


@pytest.mark.parametrize("mark", [[], ["PRAGMA application_id = 1128813126", "PRAGMA user_version = 1"]],
                         ids=["unmarked", "version 1"])
def test_listing_and_exporting_an_older_database_leave_it_as_it_was(tmp_path, mark):
    """`sittings` and `export` only read: they brought an older referee's file up to date (the open calls' table, the
    mark, write-ahead mode), which the older referee then refused as newer, when a backup was only listed."""
    from assistant import NewGame
    from assistant.events import to_dict

    path = tmp_path / "backup.sqlite3"
    raw = sqlite3.connect(path)
    for statement in [*mark, "CREATE TABLE sittings (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created TEXT NOT NULL)",
                      "CREATE TABLE events (sitting_id, seq, body, recorded)",
                      "CREATE TABLE games (sitting_id, number, kind, players, places, tracked)",
                      "INSERT INTO sittings (name, created) VALUES ('Friday', '2026-11-27')"]:
        raw.execute(statement)
    raw.execute("INSERT INTO events VALUES (1, 0, ?, '2026-11-27')", (json.dumps(to_dict(NewGame(("Ann", "Ben")))),))
    raw.commit()
    raw.close()
    before = path.read_bytes()
    assert run_cli("sittings", "--db", str(path)).stdout.split("\t")[:2] == ["1", "Friday"]
    assert json.loads(run_cli("export", "1", "--db", str(path)).stdout) == {"event": "new_game", "players": ["Ann", "Ben"]}
    assert run_cli("export", "1", "--csv", "--db", str(path)).stdout.startswith("game,")
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["backup.sqlite3"]


def test_listing_and_exporting_a_database_in_write_ahead_mode_leaves_no_journal_files_beside_it(tmp_path):
    """Read through a read-only connection, a file in write-ahead mode kept the ``-wal`` and ``-shm`` that reading it
    makes: a backup folder listed gained two files."""
    path = tmp_path / "r.sqlite3"
    transcript = tmp_path / "in.jsonl"
    transcript.write_text(json.dumps({"event": "new_game", "players": ["Ann", "Ben"]}) + "\n")
    assert run_cli("import", str(transcript), "--name", "Friday", "--db", str(path)).returncode == 0
    transcript.unlink()
    before = path.read_bytes()
    assert run_cli("sittings", "--db", str(path)).stdout.split("\t")[:2] == ["1", "Friday"]
    assert run_cli("export", "1", "--db", str(path)).returncode == 0
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["r.sqlite3"]


def test_importing_a_bad_transcript_names_the_line_and_stores_nothing(tmp_path):
    db = str(tmp_path / "r.sqlite3")
    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "new_game", "players": ["Alice", "Ben"]}\n{"event": "pass", "player": "Alice"}\n')
    result = run_cli("import", str(transcript), "--name", "Friday", "--db", db)
    assert result.returncode == 2 and result.stderr.strip() == "line 2: passing is off in this game"
    assert not (tmp_path / "r.sqlite3").exists(), "the transcript is checked before a database is made for it"


def test_an_import_that_fails_leaves_no_database_or_folders_behind(tmp_path):
    """A missing file, a bad line or a blank name made an empty database, and its folders, at a mistyped --db."""
    good = tmp_path / "good.jsonl"
    good.write_text('{"event": "new_game", "players": ["Alice", "Ben"]}\n')
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"event": "bogus"}\n')
    db = tmp_path / "new" / "a" / "r.sqlite3"
    for file, name, why in ((tmp_path / "none.jsonl", "X", "cannot read"), (bad, "X", 'unknown event "bogus"'),
                            (good, "  ", "a sitting needs a name")):
        result = run_cli("import", str(file), "--name", name, "--db", str(db))
        assert result.returncode == 2 and why in result.stderr, result.stderr
    assert not (tmp_path / "new").exists()


def test_an_import_the_disk_cannot_take_leaves_no_new_database_behind_and_keeps_an_old_one(tmp_path, monkeypatch,
                                                                                               capsys):
    """A full disk refused the import's write after the database was made: an empty file stayed at the new --db (an
    audit, on a full tmpfs). The file and its folders made for the import go again; a database already there stays."""
    from assistant import __main__ as cli
    from assistant.referee import Referee

    def full(*args, **kwargs):
        raise StorageError("cannot write to the database: database or disk is full (the disk is full)")

    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "winner", "player": "Ann", "players": ["Ann", "Ben"]}\n')
    old = tmp_path / "old.sqlite3"
    Referee.new(SqliteStore(old), "Friday").store.close()
    monkeypatch.setattr(Referee, "import_sitting", full)
    new = tmp_path / "new" / "a" / "r.sqlite3"
    for db in (new, old):
        assert cli.main(["import", str(transcript), "--name", "Saturday", "--db", str(db)]) == 2
        assert "the disk is full" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
    assert [s.name for s in SqliteStore(old).sittings()] == ["Friday"]


def test_an_import_that_fails_never_takes_away_a_database_another_referee_made_meanwhile(tmp_path, monkeypatch,
                                                                                         capsys):
    """The clean-up above took any file at the new --db with it: one that another referee (the app) made and stored a
    game in while a bad transcript was being read from the standard input, or while the import wrote (a review)."""
    from assistant import __main__ as cli
    from assistant.referee import Referee
    from assistant.sitting import TranscriptError

    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "winner", "player": "Ann", "players": ["Ann", "Ben"]}\n')

    def friday_meanwhile(db: Path) -> None:
        referee = Referee.new(SqliteStore(db), "Friday")
        referee.record(Winner("Ann", players=("Ann", "Ben")))
        referee.store.close()

    holding = []

    def read_badly(file, replayed):
        friday_meanwhile(tmp_path / "a" / "r.sqlite3")
        # ... and is writing to it still, so that a look inside is refused as "locked"
        writer = sqlite3.connect(tmp_path / "a" / "r.sqlite3", timeout=0)
        writer.execute("PRAGMA locking_mode=EXCLUSIVE")
        writer.execute("BEGIN EXCLUSIVE")
        holding.append(writer)
        raise TranscriptError(1, "not valid JSON")

    def store_fails(store, name, sitting):
        friday_meanwhile(tmp_path / "b" / "r.sqlite3")
        raise StorageError("cannot write to the database: disk I/O error")

    monkeypatch.setattr(cli, "_read", read_badly)
    assert cli.main(["import", str(transcript), "--name", "Saturday", "--db", str(tmp_path / "a" / "r.sqlite3")]) == 2
    holding.pop().close()
    monkeypatch.undo()
    monkeypatch.setattr(Referee, "import_sitting", store_fails)
    assert cli.main(["import", str(transcript), "--name", "Saturday", "--db", str(tmp_path / "b" / "r.sqlite3")]) == 2
    for folder in ("a", "b"):
        assert [s.name for s in SqliteStore(tmp_path / folder / "r.sqlite3").sittings()] == ["Friday"], folder


def test_an_import_into_a_file_as_if_it_were_a_folder_is_said_in_a_line(tmp_path):
    """A traceback (NotADirectoryError) from the clean-up hid "... is a file, not a folder"."""
    (tmp_path / "afile").write_text("notes")
    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "winner", "player": "Ann", "players": ["Ann", "Ben"]}\n')
    result = run_cli("import", str(transcript), "--name", "X", "--db", str(tmp_path / "afile" / "sub" / "r.sqlite3"))
    assert result.returncode == 2 and "is a file, not a folder" in result.stderr and "Traceback" not in result.stderr
    assert (tmp_path / "afile").read_text() == "notes"


def test_a_transcript_is_imported_from_the_standard_input_and_counted_in_words(tmp_path):
    db = str(tmp_path / "r.sqlite3")
    line = '{"event": "winner", "player": "Ann", "players": ["Ann", "Ben"]}\n'
    result = subprocess.run([sys.executable, "-m", "assistant", "import", "-", "--name", "Friday", "--db", db],
                            input=line, capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0 and result.stdout.startswith("imported 1 event as sitting 1"), result
    assert run_cli("sittings", "--db", db).stdout.rstrip().endswith("\t1 event")


def test_a_name_holding_half_a_character_is_refused_not_a_traceback(tmp_path):
    """JSON's "\\ud800" decodes to a lone surrogate: the summary, the export and the database failed on it."""
    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "new_game", "players": ["A\\ud800", "B"]}\n')
    for command in (["replay", str(transcript)], ["import", str(transcript), "--name", "X",
                                                   "--db", str(tmp_path / "r.sqlite3")]):
        result = run_cli(*command)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert "line 1: field 'players': the name \"A\\ud800\" holds half of a character" in result.stderr
    assert not (tmp_path / "r.sqlite3").exists()


@pytest.mark.parametrize("line, reason", [
    ({"event": "new_game", "players": ["Ann", "Oluwaseun Adeyemi"]},
     "line 2: the name Oluwaseun Adeyemi has 17 characters: the referee seats names of at most 16, so that each fits "
     "on the table screen"),
    ({"event": "new_game", "players": ["Ann", "Ben", "ANN"]},
     "line 2: Ann and ANN differ only in case: the referee seats no two players of a game so alike"),
    ({"event": "new_game", "players": ["Strauß", "STRAUSS"]},  # the same to case folding, as to the setup
     "line 2: Strauß and STRAUSS differ only in case"),
    ({"event": "new_game", "players": ["Zoe\u0308", "Ben"]},
     'line 2: the name "Zoe\\u0308" is not written as the referee keeps it, "Zoë" (single spaces and none at its '
     "ends, letters composed, no characters that show nothing): write it so on every line"),
    ({"event": "new_game", "players": ["Ann", "Ben  Lee"]}, 'line 2: the name "Ben  Lee" is not written as the '
                                                            'referee keeps it, "Ben Lee"'),
    ({"event": "new_game", "players": ["\u200b", "Ben"]},
     'line 2: the name "\\u200b" shows nothing: the referee seats no such name'),
    # a result's players, which the rules pass over while a game is in progress
    ({"event": "winner", "player": "Ann", "players": ["Ann", "Ben", "王伟\u200b"]},
     'line 2: the name "王伟\\u200b" is not written as the referee keeps it, "王伟"'),
], ids=["too long", "case", "folded case", "decomposed", "two spaces", "nothing shown", "unseen in a result"])
def test_an_import_refuses_names_the_app_could_not_seat_and_makes_no_database(tmp_path, line, reason):
    """The setup refuses a name over 16 characters, and a second player whose name differs from one seated only in
    case, composed letters or unseen characters; an import took them, and the app then showed the sitting with names
    its table screen was not laid out for, or two players who looked the same. ``replay`` keeps to TRANSCRIPT.md,
    which allows any names unique in a game."""
    lines = [{"event": "new_game", "players": ["Ann", "Ben"]}, line]
    transcript = tmp_path / "in.jsonl"
    transcript.write_text("".join(json.dumps(event) + "\n" for event in lines))
    db = tmp_path / "new" / "r.sqlite3"
    result = run_cli("import", str(transcript), "--name", "Friday", "--db", str(db))
    assert result.returncode == 2 and result.stdout == "", result.stdout
    assert result.stderr.startswith(reason) and len(result.stderr.splitlines()) == 1, result.stderr
    assert not (tmp_path / "new").exists(), "nothing is stored, and no database made for it"
    assert run_replay(tmp_path, lines).returncode == 0


def test_an_import_takes_every_name_the_app_seats_as_it_is(tmp_path):
    """A name the setup seats is imported, and exported, exactly as written: one of 16 characters, composed letters,
    the joiners that shape a Persian name or join an emoji, a right-to-left name, and names that differ in more than
    case. A transcript the app wrote imports again."""
    names = ["Oluwaseun Adeyem", "Zoë", "نیک\u200cنام", "👨\u200d👩\u200d👧", "שרה לוי", "Ann", "Anna"]
    lines = [{"event": "new_game", "players": names, "dealer": "Ann", "rules": {"table": "ranked"}},
             {"event": "winner", "places": ["Zoë", "Anna"]}]
    transcript = tmp_path / "in.jsonl"
    transcript.write_text("".join(json.dumps(event) + "\n" for event in lines))
    db = str(tmp_path / "r.sqlite3")
    imported = run_cli("import", str(transcript), "--name", "Friday", "--db", db)
    assert imported.returncode == 0, imported.stderr
    deal, result = (json.loads(line) for line in run_cli("export", "1", "--db", db).stdout.splitlines())
    assert deal["players"] == names and result["places"] == ["Zoë", "Anna"]


def test_a_database_path_that_is_a_pipe_or_an_empty_file_is_refused_and_left_as_it_is(tmp_path):
    """--db naming a pipe waited for ever; an empty file was made into a database by a command that only reads."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    result = subprocess.run([sys.executable, "-m", "assistant", "sittings", "--db", str(pipe)], capture_output=True,
                            text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 2 and "it is not a file (a device or a pipe)" in result.stderr
    empty = tmp_path / "empty.db"
    empty.touch()
    result = run_cli("export", "1", "--db", str(empty))
    assert result.returncode == 2 and "the file is empty" in result.stderr and empty.stat().st_size == 0


def test_output_that_cannot_be_written_is_said_in_a_line(tmp_path):
    """A full disk under the output ended in a traceback."""
    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "new_game", "players": ["Alice", "Ben"]}\n')
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "assistant", "replay", "--json", str(transcript)], stdout=full,
                                stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert result.returncode == 1 and result.stderr.strip() == "cannot write the output: No space left on device"


def test_listing_or_exporting_from_a_database_that_is_not_there_says_so_and_makes_none(tmp_path):
    """A mistyped --db made an empty database there and listed nothing, as if the evening were lost."""
    missing = tmp_path / "typo" / "r.sqlite3"
    for command in (["sittings"], ["export", "1"], ["export", "1", "--csv"]):
        result = run_cli(*command, "--db", str(missing))
        assert result.returncode == 2 and result.stdout == ""
        assert f"there is no database at {missing}" in result.stderr, result.stderr
    assert not (tmp_path / "typo").exists()


def test_an_empty_database_says_it_has_no_sittings(tmp_path):
    empty = tmp_path / "e.sqlite3"
    SqliteStore(empty)  # the referee's tables, no sitting
    result = run_cli("sittings", "--db", str(empty))
    assert result.returncode == 0 and result.stdout == "" and f"No sittings yet in {empty}." in result.stderr


def test_exporting_an_unknown_sitting_says_so(tmp_path):
    SqliteStore(tmp_path / "r.sqlite3")
    result = run_cli("export", "7", "--db", str(tmp_path / "r.sqlite3"))
    assert result.returncode == 2 and "there is no sitting number 7" in result.stderr


@pytest.mark.parametrize("number", ["1_0", "１", "abc", "-1"])
def test_export_takes_a_sittings_number_as_sittings_lists_it(tmp_path, number):
    """Python's int() read "1_0" as sitting 10 and a full-width "１" as sitting 1."""
    result = run_cli("export", number, "--db", str(tmp_path / "r.sqlite3"))
    assert result.returncode == 2 and f"{number!r} is not a sitting's number" in result.stderr


def test_a_tapped_results_scoring_travels_in_the_transcript(tmp_path):
    """The format's one more field (README): a ranked result tapped in with no game dealt replays as ranked."""
    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "winner", "places": ["Cara", "Ann"], "players": ["Ann", "Ben", "Cara"], '
                          '"table": "ranked"}\n')
    state = json.loads(run_cli("replay", "--json", str(transcript)).stdout)
    assert state["table"] == {"kind": "ranked", "games": 1, "scores": {"Ann": 2, "Ben": 0, "Cara": 3}}
    db = str(tmp_path / "r.sqlite3")
    assert run_cli("import", str(transcript), "--name", "Friday", "--db", db).returncode == 0
    assert json.loads(run_cli("export", "1", "--db", db).stdout)["table"] == "ranked"


def test_the_summary_of_an_evening_of_match_and_ranked_games_says_how_its_standing_counts(tmp_path):
    """Four match games and two ranked ones were summed up as "Table (ranked)": a standing that read as six ranked
    games. The JSON keeps the latest game's kind, as TRANSCRIPT.md has it."""
    lines = [{"event": "winner", "player": "Ann", "players": ["Ann", "Ben", "Cara", "Dev"]},
             {"event": "winner", "places": ["Ben", "Cara", "Ann"], "table": "ranked"}]
    mixed = run_replay(tmp_path, lines)
    assert ("Table (match games: one point per win; ranked games: 3-2-1 points for places), 2 games finished:"
            in mixed.stdout), mixed.stdout
    assert mixed.stdout.splitlines()[-4:] == ["  Ann: 2", "  Ben: 3", "  Cara: 2", "  Dev: 0"]
    assert json.loads(run_replay(tmp_path, lines, "--json").stdout)["table"]["kind"] == "ranked"
    ranked = [{**lines[1], "players": ["Ann", "Ben", "Cara", "Dev"]}]
    assert "Table (ranked: 3-2-1 points for places), 1 game finished:" in run_replay(tmp_path, ranked).stdout


def test_an_import_whose_confirmation_cannot_be_written_still_says_it_is_stored(tmp_path):
    """Exit 1 and "cannot write the output" after the sitting was stored: a script that retries imported it twice."""
    transcript = tmp_path / "in.jsonl"
    transcript.write_text('{"event": "winner", "player": "Ann", "players": ["Ann", "Ben"]}\n')
    db = str(tmp_path / "r.sqlite3")
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "assistant", "import", str(transcript), "--name", "Fri",
                                 "--db", db], stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert result.returncode == 0 and result.stderr.startswith("imported 1 event as sitting 1 (Fri); this line")
    assert len(SqliteStore(db).sittings()) == 1


def test_a_database_behind_a_folder_this_user_may_not_enter_is_said_so(tmp_path, monkeypatch):
    """It was said as "cannot write the output: Permission denied"."""
    from assistant import __main__ as cli

    def refused(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(cli.Path, "exists", refused)
    with pytest.raises(StorageError, match="cannot open the database .*: permission denied"):
        cli._existing(str(tmp_path / "private" / "r.sqlite3"))


def test_a_file_name_in_an_error_is_said_with_what_would_act_on_the_terminal_written_as_escapes(tmp_path):
    """`cannot read /tmp/x<ESC>[2J`: the name of a file not found went to the terminal as it was, and cleared it."""
    result = run_cli("replay", str(tmp_path / "x\x1b[2J.jsonl"))
    assert result.returncode == 2 and "\x1b" not in result.stderr and "x\\u001b[2J.jsonl" in result.stderr, result
