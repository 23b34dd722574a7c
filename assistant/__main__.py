"""Command line of the rules core.

    python -m assistant replay [--json] FILE        the state after a transcript (TRANSCRIPT.md)
    python -m assistant sittings                    the sittings in the database
    python -m assistant export SITTING [--csv]      a sitting as a transcript, or its match table as CSV
    python -m assistant import FILE --name NAME     a transcript as a new sitting
"""

from __future__ import annotations

import argparse
import json
import sys

from .errors import StorageError
from .referee import Referee
from .sitting import TranscriptError, replay, state_to_json
from .storage import SqliteStore


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assistant", description="Cheat Referee's rules core")
    commands = parser.add_subparsers(dest="command", required=True)
    replay_cmd = commands.add_parser("replay", help="replay a sitting's transcript and print its state")
    replay_cmd.add_argument("--json", action="store_true", help="print the state as JSON")
    replay_cmd.add_argument("file", help="a transcript in JSON Lines")
    commands.add_parser("sittings", help="list the sittings in the database")
    export_cmd = commands.add_parser("export", help="print a sitting's transcript (or its match table with --csv)")
    export_cmd.add_argument("sitting", type=int, help="the sitting's number, from `sittings`")
    export_cmd.add_argument("--csv", action="store_true", help="the match table as CSV instead")
    import_cmd = commands.add_parser("import", help="store a transcript as a new sitting")
    import_cmd.add_argument("file", help="a transcript in JSON Lines")
    import_cmd.add_argument("--name", required=True, help="the new sitting's name")
    for command in (export_cmd, import_cmd, commands.choices["sittings"]):
        command.add_argument("--db", help="the database file (default: $CHEAT_REFEREE_DB or the data folder)")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return _replay(args)
    try:
        store = SqliteStore(args.db)
        if args.command == "sittings":
            for info in store.sittings():
                print(f"{info.id}\t{info.name}\t{info.created}\t{info.events} events")
        elif args.command == "export":
            referee = Referee(store, args.sitting)
            sys.stdout.write(referee.table_csv() if args.csv else referee.transcript())
        else:
            with open(args.file, "rb") as handle:
                referee = Referee.import_transcript(store, args.name, handle)
            print(f"imported {len(referee.sitting.log)} events as sitting {referee.sitting_id} ({args.name})")
    except (StorageError, TranscriptError) as error:
        print(str(error), file=sys.stderr)
        return 2
    except OSError as error:
        print(f"cannot read {error.filename}: {error.strerror}", file=sys.stderr)
        return 2
    return 0


def _replay(args: argparse.Namespace) -> int:
    try:
        with open(args.file, "rb") as handle:
            sitting = replay(handle)
    except OSError as error:
        print(f"cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    except TranscriptError as error:
        print(str(error), file=sys.stderr)
        return 2
    state = state_to_json(sitting.state)
    if args.json:
        print(json.dumps(state))
    else:
        print(_summary(state))
    return 0


def _summary(state: dict) -> str:
    lines = []
    game = state["game"]
    if game is None:
        lines.append("No game dealt yet.")
    else:
        if game["over"]:
            lines.append(f"Game over. Places: {', '.join(game['places']) or 'none'}")
        else:
            lines.append(f"{game['turn']} to play, claiming {' or '.join(game['ranks_allowed'])}; pile {game['pile']}")
        lines.extend(f"  {name}: {count} cards" for name, count in game["hands"].items())
    table = state["table"]
    lines.append(f"Table ({table['kind']}), {table['games']} games:")
    lines.extend(f"  {name}: {score}" for name, score in table["scores"].items())
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
